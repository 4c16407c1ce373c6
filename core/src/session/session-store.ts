import type { Knex } from 'knex';

/**
 * One stored session. The secret id never appears here: only its SHA-256 hash, which is
 * the key. `handle` is a separate random value, safe to show (what `/sessions` lists).
 * Times are milliseconds since the epoch.
 */
export interface SessionRecord {
  idHash: string;
  handle: string;
  userId: string;
  data: Record<string, unknown>;
  createdAt: number;
  lastSeenAt: number;
  /** When the session dies unless used before: min(last use + idle timeout, absolute expiry). */
  idleExpiresAt: number;
  /** When the session dies whatever happens. */
  absoluteExpiresAt: number;
  userAgent: string | null;
  ipAddress: string | null;
}

/** The fields a write may change. */
export type SessionChanges = Partial<Pick<SessionRecord, 'data' | 'lastSeenAt' | 'idleExpiresAt'>>;

/**
 * Where a SessionManager keeps its sessions: the database (`KnexSessionStore`), Redis
 * (in the account plugin) or memory (tests, one process). Every rule lives in the
 * manager; a store only stores, with one guarantee: `update` never brings back a session
 * that was deleted, so a request in flight cannot revive a revoked session.
 */
export interface SessionStore {
  insert(record: SessionRecord): Promise<void>;
  get(idHash: string): Promise<SessionRecord | null>;
  /** Applies the changes only when the session still exists; answers whether it did. */
  update(idHash: string, changes: SessionChanges): Promise<boolean>;
  /** Deletes the sessions with these hashes; answers how many existed. */
  delete(idHashes: readonly string[]): Promise<number>;
  /** The user's sessions (the per-user index), expired ones possibly included. */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** Deletes sessions that expired before `now`; answers how many. */
  deleteExpired(now: number): Promise<number>;
  /**
   * The same store working through `db`, a transaction, so its writes commit or roll back
   * with the caller's (stores in the database; others leave it out and act at once).
   */
  within?(db: Knex): SessionStore;
}
