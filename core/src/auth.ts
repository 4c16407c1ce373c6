// @crudsmith/core/auth: what signing in needs. Server-side sessions (one SessionManager owns
// every rule: hashed ids, idle and absolute expiry, regenerate, revoke; stores keep the
// records; an adapter's carrier moves the cookie), secrets and their hashes, passwords, and
// the sign-in lockout.

/** The manager and what it answers. */
export { SessionManager } from './session/session-manager';
export type { SessionManagerOptions, IssuedSession } from './session/session-manager';
export type { Session } from './session/session-types';
export type { SessionCarrier } from './session/session-carrier';

/** The store contract, and the stores in memory and in the database (with its migration). */
export type { SessionStore, SessionRecord, SessionChanges } from './session/session-store';
export { MemorySessionStore } from './session/memory-session-store';
export { KnexSessionStore, sessionTableMigration, sessionMigrations } from './session/knex-session-store';
export type { KnexSessionStoreOptions } from './session/knex-session-store';

/** Secrets: random tokens, their stored hashes, and a timing-safe comparison. */
export { randomToken, hashSecret, safeEqual } from './security/secrets';

/** Passwords: bcrypt off the event loop, with bounded concurrency (the account plugin's and the admin's). */
export { HashPool } from './security/hash-pool';
export type { HashingOptions } from './security/hash-pool';
export { PasswordHasher, bcryptInput, normalizePassword, BCRYPT_MAX_BYTES } from './security/password-hasher';
export type { PasswordHasherOptions } from './security/password-hasher';

/** The API key contract of the account plugin and the admin: key events and an operator's list and revoke. */
export type { ApiKeyEvent, ListedApiKey, OperatorApiKeys } from './security/api-keys';

/** Sign-in lockout per account in the database, atomic under concurrent attempts. */
export { Lockout, loginFailureMigration, loginLockoutsMigration } from './security/login-lockout';
export type { LockoutOptions, Attempt } from './security/login-lockout';
