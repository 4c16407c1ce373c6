// @crudsmith/account: registration, passwords, sessions and bearer tokens over the app's user model.

/** The plugin factory and what it answers. */
export { account } from './account';
export type { AccountPlugin } from './account';
export type { AccountOptions, AccountUser, UserColumns, SessionTransportOptions, BearerTransportOptions, PasswordPolicyOptions, LockoutOptions } from './options';
export type { CurrentUserOptions } from './dependencies';
export type { Sudo, SudoGrant } from './sudo';
export type { NewUser } from './registration';
export type { HashingOptions } from '@crudsmith/core';

/** Password primitives, for apps that hash elsewhere (an admin user, a seed). */
export { bcryptInput, normalizePassword, BCRYPT_MAX_BYTES } from '@crudsmith/core';
