import type { Knex } from 'knex';
import type { Migration, MigrationSet } from '../migrations';
import type { SessionChanges, SessionRecord, SessionStore } from './session-store';

/** Options of the database session store. */
export interface KnexSessionStoreOptions {
  /** Table name (default `sessions`); create it with `sessionTableMigration(table)`. */
  table?: string;
}

/**
 * The migration that creates a session table. Times are epoch milliseconds in BIGINT
 * columns, which every engine stores and compares alike.
 */
export function sessionTableMigration(table = 'sessions'): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.string('id_hash', 64).primary();
        t.string('handle', 32).notNullable().unique();
        t.string('user_id', 64).notNullable().index();
        t.text('data').notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('last_seen_at').notNullable();
        t.bigInteger('idle_expires_at').notNullable().index();
        t.bigInteger('absolute_expires_at').notNullable();
        t.string('user_agent', 255).nullable();
        t.string('ip_address', 64).nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** A migration set holding only the session table, for apps that use a SessionManager alone. */
export function sessionMigrations(table = 'sessions', name = 'sessions'): MigrationSet {
  return { name, migrations: { '0001_session_table': sessionTableMigration(table) } };
}

type Row = Record<string, unknown>;

/** Sessions in a SQL table (PostgreSQL, MariaDB/MySQL, SQLite), shared by every process. */
export class KnexSessionStore implements SessionStore {
  private readonly table: string;

  constructor(
    private readonly knex: Knex,
    options: KnexSessionStoreOptions = {},
  ) {
    this.table = options.table ?? 'sessions';
  }

  /** The same table through `db` (a transaction). */
  within(db: Knex): KnexSessionStore {
    return new KnexSessionStore(db, { table: this.table });
  }

  async insert(record: SessionRecord): Promise<void> {
    await this.knex(this.table).insert(toRow(record));
  }

  async get(idHash: string): Promise<SessionRecord | null> {
    const row = await this.knex(this.table).where('id_hash', idHash).first();
    return row ? fromRow(row) : null;
  }

  async update(idHash: string, changes: SessionChanges): Promise<boolean> {
    const values: Row = {};
    if (changes.data !== undefined) values.data = JSON.stringify(changes.data);
    if (changes.lastSeenAt !== undefined) values.last_seen_at = changes.lastSeenAt;
    if (changes.idleExpiresAt !== undefined) values.idle_expires_at = changes.idleExpiresAt;
    // An UPDATE, never an upsert: a deleted session stays deleted.
    const count = await this.knex(this.table).where('id_hash', idHash).update(values);
    return Number(count) > 0;
  }

  async delete(idHashes: readonly string[]): Promise<number> {
    if (idHashes.length === 0) return 0;
    return Number(
      await this.knex(this.table)
        .whereIn('id_hash', [...idHashes])
        .delete(),
    );
  }

  async listByUser(userId: string): Promise<SessionRecord[]> {
    const rows = await this.knex(this.table).where('user_id', userId).orderBy('created_at', 'asc');
    return rows.map(fromRow);
  }

  async deleteExpired(now: number): Promise<number> {
    return Number(
      await this.knex(this.table)
        .where('idle_expires_at', '<=', now)
        .orWhere('absolute_expires_at', '<=', now)
        .delete(),
    );
  }
}

function toRow(record: SessionRecord): Row {
  return {
    id_hash: record.idHash,
    handle: record.handle,
    user_id: record.userId,
    data: JSON.stringify(record.data),
    created_at: record.createdAt,
    last_seen_at: record.lastSeenAt,
    idle_expires_at: record.idleExpiresAt,
    absolute_expires_at: record.absoluteExpiresAt,
    user_agent: record.userAgent,
    ip_address: record.ipAddress,
  };
}

// pg answers BIGINT as a string; every engine answers the JSON column as text.
function fromRow(row: Row): SessionRecord {
  return {
    idHash: String(row.id_hash),
    handle: String(row.handle),
    userId: String(row.user_id),
    data: JSON.parse(String(row.data)) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    idleExpiresAt: Number(row.idle_expires_at),
    absoluteExpiresAt: Number(row.absolute_expires_at),
    userAgent: (row.user_agent as string | null) ?? null,
    ipAddress: (row.ip_address as string | null) ?? null,
  };
}
