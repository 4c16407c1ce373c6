// @crudsmith/admin: the admin web interface, server-rendered (pug + htmx), with its own
// admin users, sessions, CSRF and sign-in lockout, over the app's objection models.

/** The plugin factory and what it answers. */
export { admin } from './admin';
export type { AdminPlugin } from './admin';
export { adminUserOf } from './admin-user-of';
export type { AdminUser } from './admin-users';
export type { AdminAccessOptions, RoleCatalogue, RoleOfCatalogue, HeldRoles } from './admin-roles';

export type {
  AdminOptions,
  AdminSessionOptions,
  AdminTheme,
  ModelView,
  AdminAction,
  PasswordTransformer,
} from './options';

/** The startup errors of a bad configuration. */
export { AdminSchemaError, AdminModelTypeError, AdminDependencyError } from './errors';
export type { MessageKey, Messages } from './i18n/en';
