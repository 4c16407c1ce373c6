import type { Knex } from 'knex';
import { DuplicateValueError } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { Migration, MigrationSet } from '../migrations';

// The record of idempotent requests, in a table every process shares. A request claims
// its key by inserting the key's row: the primary key makes that insert the lock, so of
// two requests with one key exactly one goes on. The answer is stored on the row once
// the request is done; times are epoch milliseconds in BIGINT columns, which every engine
// stores and compares alike.

/** The default table of idempotency keys. */
export const IDEMPOTENCY_TABLE = 'crudsmith_idempotency_keys';

/** A key's row: the request it was first used with, and its answer once there is one. */
export interface IdempotencyRecord {
  fingerprint: string;
  /** Null while the first request is still running. */
  status: number | null;
  /** The stored answer: its JSON body and headers, as text. */
  response: string | null;
  expiresAt: number;
}

/** A request's claim of its key: the key's scope, the request's fingerprint, and how long the key lives. */
export interface IdempotencyClaim {
  scope: string;
  fingerprint: string;
  now: number;
  ttlMs: number;
}

/**
 * Where idempotency keys are kept, shared by every process: a SQL table or Redis. `db` is
 * the router's database (a Redis store does not use it).
 */
export interface IdempotencyStore {
  /** The key table, when the store needs one migrated. */
  readonly table?: string;
  /** Records the key as running; false when the key already has a record (atomically: one claim wins). */
  claim(db: Knex, claim: IdempotencyClaim): Promise<boolean>;
  find(db: Knex, scope: string): Promise<IdempotencyRecord | undefined>;
  finish(db: Knex, scope: string, status: number, response: string): Promise<void>;
  release(db: Knex, scope: string, expiredBy?: number): Promise<void>;
  sweep(db: Knex, now: number): Promise<void>;
}

/** The migration that creates the idempotency key table. */
export function idempotencyTableMigration(table = IDEMPOTENCY_TABLE): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        // A hash of the caller, the route and the client's key: a fixed width whatever the key.
        t.string('scope', 64).primary();
        t.string('fingerprint', 64).notNullable();
        t.integer('status').nullable();
        t.text('response').nullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('expires_at').notNullable().index();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** The migration set of the idempotency key table; a router with `idempotency` carries it for bootstrap. */
export function idempotencyMigrations(table = IDEMPOTENCY_TABLE, name?: string): MigrationSet {
  name ??= table === IDEMPOTENCY_TABLE ? 'crudsmith-idempotency' : `crudsmith-idempotency-${table}`;
  return { name, migrations: { '0001_idempotency_keys': idempotencyTableMigration(table) } };
}

/** Idempotency keys in a SQL table (PostgreSQL, MariaDB/MySQL, SQLite). */
export class KnexIdempotencyStore implements IdempotencyStore {
  constructor(readonly table = IDEMPOTENCY_TABLE) {}

  /**
   * Inserts the key's row as running; false when the key already has one. Inside a
   * transaction the insert has a savepoint of its own: a refused one on PostgreSQL would
   * otherwise abort the whole transaction.
   */
  async claim(db: Knex, claim: IdempotencyClaim): Promise<boolean> {
    const { scope, fingerprint, now, ttlMs } = claim;
    const row = { scope, fingerprint, status: null, created_at: now, expires_at: now + ttlMs };
    try {
      if (db.isTransaction) await db.transaction((savepoint) => savepoint(this.table).insert(row));
      else await db(this.table).insert(row);
      return true;
    } catch (error) {
      if (mapDatabaseError(error) instanceof DuplicateValueError) return false;
      throw error;
    }
  }

  /** The key's row, or undefined. */
  async find(db: Knex, scope: string): Promise<IdempotencyRecord | undefined> {
    const row = await db(this.table).where({ scope }).first('fingerprint', 'status', 'response', 'expires_at');
    if (!row) return undefined;
    return {
      fingerprint: row.fingerprint,
      status: row.status === null ? null : Number(row.status),
      response: row.response,
      expiresAt: Number(row.expires_at),
    };
  }

  /** Stores the answer of the request that claimed the key. */
  async finish(db: Knex, scope: string, status: number, response: string): Promise<void> {
    await db(this.table).where({ scope }).update({ status, response });
  }

  /** Removes the key's row (its request failed and wrote nothing), or only if it expired by `now`. */
  async release(db: Knex, scope: string, expiredBy?: number): Promise<void> {
    const query = db(this.table).where({ scope });
    if (expiredBy !== undefined) query.where('expires_at', '<=', expiredBy);
    await query.delete();
  }

  /** Removes every expired row. */
  async sweep(db: Knex, now: number): Promise<void> {
    await db(this.table).where('expires_at', '<=', now).delete();
  }
}
