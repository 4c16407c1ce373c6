import type { Knex } from 'knex';
import { randomToken } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';

/** Who the first superuser is (ADMIN_USERNAME, ADMIN_EMAIL, ADMIN_PASSWORD). */
export interface FirstSuperuser {
  username: string;
  email: string;
  password?: string;
}

/**
 * Creates the first superuser when none exists. Without ADMIN_PASSWORD a random one is
 * generated and printed once: it is stored only as a hash.
 */
export async function ensureFirstSuperuser(knex: Knex, auth: AccountPlugin, admin: FirstSuperuser, log: (line: string) => void = console.log): Promise<void> {
  if (await knex('users').where('is_superuser', true).first('id')) return;
  if (await knex('users').whereRaw('lower(username) = ?', [admin.username.toLowerCase()]).first('id')) {
    log(`First superuser not created: a user named ${admin.username} already exists (set ADMIN_USERNAME to another name).`);
    return;
  }
  const password = admin.password ?? randomToken(18);
  await auth.createUser({ username: admin.username, email: admin.email, password, name: 'Administrator' }, { superuser: true });
  if (admin.password) log(`Created the first superuser ${admin.username} (password from ADMIN_PASSWORD).`);
  else log(`Created the first superuser ${admin.username} with the password ${password} (shown once; change it at /auth/change-password).`);
}
