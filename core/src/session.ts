// @crudsmith/core/session: server-side sessions. One SessionManager owns every rule
// (hashed ids, idle and absolute expiry, regenerate, revoke); stores keep the records; an
// adapter's carrier moves the cookie.

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
