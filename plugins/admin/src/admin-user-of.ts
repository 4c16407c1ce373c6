import type { NeutralRequest } from '@crudsmith/core';
import type { AdminUser } from './admin-users';

const KEY = 'crudsmith.admin.user';

/**
 * The admin user signed in on an admin request, or null elsewhere: what an auto-field
 * dependency reads to stamp rows the admin writes (`created_by`), since an admin request
 * carries no API session.
 */
export function adminUserOf(req: NeutralRequest): AdminUser | null {
  return (req.state[KEY] as AdminUser | undefined) ?? null;
}

/** Records the admitted admin user on the request, for `adminUserOf`. */
export function setAdminUser(req: NeutralRequest, user: AdminUser): void {
  req.state[KEY] = user;
}
