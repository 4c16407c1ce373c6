import type { Knex } from 'knex';
import { randomToken } from '@crudsmith/core/auth';
import type { AccountPlugin } from '@crudsmith/account';
import { userRepository } from './routes/user-access';
import { ensureRoles } from './roles';

/** Who the first superuser is (ADMIN_USERNAME, ADMIN_EMAIL, ADMIN_PASSWORD). */
export interface FirstSuperuser {
  username: string;
  email: string;
  password?: string;
}

/**
 * Creates the example's roles, and the first superuser, holding `admin`, when none exists. Without ADMIN_PASSWORD a random one is
 * generated and printed once: it is stored only as a hash.
 */
export async function ensureFirstSuperuser(
  knex: Knex,
  auth: AccountPlugin,
  admin: FirstSuperuser,
  log: (line: string) => void = console.log,
): Promise<void> {
  await ensureRoles(auth);
  // Soft-deleted users count: a superuser someone deleted is not brought back at the next
  // start, and a deleted user's name stays taken.
  if (await userRepository.exists(knex, { is_superuser: true }, { includeDeleted: true })) return;
  if (await userRepository.exists(knex, { username__same_text: admin.username }, { includeDeleted: true })) {
    log(
      `First superuser not created: a user named ${admin.username} already exists (set ADMIN_USERNAME to another name).`,
    );
    return;
  }
  const password = admin.password ?? randomToken(18);
  const created = await auth.createUser(
    { username: admin.username, email: admin.email, password, name: 'Administrator' },
    { superuser: true },
  );
  await auth.roles.assign(created.id, 'admin');
  if (admin.password) log(`Created the first superuser ${admin.username} (password from ADMIN_PASSWORD).`);
  else
    log(
      `Created the first superuser ${admin.username} with the password ${password} (shown once; change it at /auth/change-password).`,
    );
}
