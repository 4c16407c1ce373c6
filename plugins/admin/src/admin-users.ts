import type { Knex } from 'knex';
import { DuplicateValueError, ValidationError, dialectOf, mapDatabaseError, type Migration } from '@crudsmith/core';
import { normalizePassword } from '@crudsmith/core/auth';

/** Longest admin username, in characters. */
export const USERNAME_MAX = 50;

/** An admin user as the pages see it (never its hash). */
export interface AdminUser {
  id: number;
  username: string;
}

/** The admin-user table: the admin's own accounts, apart from the app's users. */
export function adminUsersMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('username', USERNAME_MAX).notNullable().unique();
        t.string('hashed_password', 100).notNullable();
        t.bigInteger('created_at').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** One spelling per name: NFKC, case folded, so `Admin` and `admin` are one account on every engine. */
export function foldUsername(username: string): string {
  return normalizePassword(username).trim().toLowerCase();
}

/** Reads and writes admin users. */
export class AdminUsers {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
  ) {}

  /** The user and its hash, by username (folded), or null. */
  async find(username: string): Promise<(AdminUser & { hashedPassword: string }) | null> {
    const row = await this.knex(this.table)
      .where({ username: foldUsername(username) })
      .first('id', 'username', 'hashed_password');
    return row
      ? { id: Number(row.id), username: String(row.username), hashedPassword: String(row.hashed_password) }
      : null;
  }

  /** Adds a user with an already hashed password; a taken name is a 409. */
  async insert(username: string, hashedPassword: string, now: number): Promise<number> {
    const name = foldUsername(username);
    if (name.length === 0 || [...name].length > USERNAME_MAX) {
      throw ValidationError.of(
        ['body', 'username'],
        `Username must be 1 to ${USERNAME_MAX} characters`,
        'string_too_long',
      );
    }
    try {
      const row = { username: name, hashed_password: hashedPassword, created_at: now };
      // PostgreSQL answers the id only through RETURNING; MariaDB and SQLite answer it as the insert id (and warn on RETURNING).
      const [id] =
        dialectOf(this.knex) === 'pg'
          ? await this.knex(this.table).insert(row, ['id'])
          : await this.knex(this.table).insert(row);
      return Number(typeof id === 'object' ? (id as { id: number }).id : id);
    } catch (error) {
      const mapped = mapDatabaseError(error);
      if (mapped instanceof DuplicateValueError) throw new DuplicateValueError(`Admin user '${name}' already exists`);
      throw error;
    }
  }

  /** Every admin user (at most 1000), by id, with when each was created. */
  async list(): Promise<(AdminUser & { createdAt: Date })[]> {
    const rows = await this.knex(this.table).orderBy('id').limit(1000).select('id', 'username', 'created_at');
    return rows.map((r: Record<string, unknown>) => ({
      id: Number(r.id),
      username: String(r.username),
      createdAt: new Date(Number(r.created_at)),
    }));
  }

  /** One admin user by id, or null. */
  async byId(id: number): Promise<AdminUser | null> {
    const row = await this.knex(this.table).where({ id }).first('id', 'username');
    return row ? { id: Number(row.id), username: String(row.username) } : null;
  }

  /** How many admin users there are (the example creates the first one when there is none). */
  async count(): Promise<number> {
    const row = await this.knex(this.table).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
