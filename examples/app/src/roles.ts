import { DuplicateValueError } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';

/** The example's roles and the permissions each holds (the notes' policy tests these). */
export const EXAMPLE_ROLES: Record<string, string[]> = {
  viewer: ['notes:read'],
  editor: ['notes:read', 'notes:write', 'notes:review'],
  admin: ['notes:read', 'notes:write', 'notes:review', 'notes:purge'],
};

/** Creates the roles missing from the database; the roles already there are left as they are. */
export async function ensureRoles(auth: AccountPlugin): Promise<void> {
  const existing = new Set((await auth.roles.list()).map((role) => role.name));
  for (const [name, permissions] of Object.entries(EXAMPLE_ROLES)) {
    // Two processes starting at once may both try: the second's conflict leaves the first's role.
    if (existing.has(name)) continue;
    await auth.roles.createRole(name, permissions).catch((error: unknown) => {
      if (!(error instanceof DuplicateValueError)) throw error;
    });
  }
}
