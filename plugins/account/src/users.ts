import type { Knex } from 'knex';
import {
  ConfigurationError,
  CrudRepository,
  dialectOf,
  modelInfo,
  type ModelClass,
  type ModelInfo,
} from '@crudsmith/core';
import type { AccountUser, UserColumns } from './options';

type Row = Record<string, unknown>;

/**
 * The one form of a username or e-mail the plugin stores and looks up: Unicode NFKC, so
 * `ﬀ` and `ff`, or full-width `Ａｄａ` and `Ada`, are one name. Every entry point
 * (registration, `createUser`, `/login`, `/token`, sudo, the lockout key) goes through it.
 */
export function normalizeIdentifier(value: string): string {
  return value.normalize('NFKC');
}

/** The identifier as it is compared: normalised, then lower-cased (names match without regard to case). */
export function foldIdentifier(value: string): string {
  return normalizeIdentifier(value).toLowerCase();
}

// SQLite's lower() folds ASCII only, so on SQLite identifiers are compared through this
// function, registered on the connection (knex keeps one for better-sqlite3).
const SQLITE_FOLD = 'crudsmith_account_fold';
const folded = new WeakSet<object>();

/** Resolves the column map against the model: defaults for what exists, errors for what does not. */
export function resolveColumns(model: ModelClass, given: Partial<UserColumns> = {}): UserColumns {
  const info = modelInfo(model);
  const has = (name: string) => info.columns.has(name);
  const optional = (key: keyof UserColumns, fallback: string) =>
    key in given ? (given[key] ?? null) : has(fallback) ? fallback : null;
  const columns: UserColumns = {
    id: given.id ?? info.idColumn,
    username: given.username ?? 'username',
    email: optional('email', 'email'),
    phone: optional('phone', 'phone'),
    passwordHash: given.passwordHash ?? 'hashed_password',
    isSuperuser: optional('isSuperuser', 'is_superuser'),
    isVerified: optional('isVerified', 'is_verified'),
    isDeleted: optional('isDeleted', 'is_deleted'),
    tokenVersion: given.tokenVersion ?? 'token_version',
    tierId: optional('tierId', 'tier_id'),
  };
  for (const [role, column] of Object.entries(columns)) {
    if (column !== null && !has(column)) {
      throw new ConfigurationError(
        `account: column '${column}' (${role}) not found in model ${model.name}'s jsonSchema`,
      );
    }
  }
  return columns;
}

/**
 * The plugin's access to the app's user table. Reads go through knex; inserts through
 * core's repository, which stamps `created_at` and runs the model's hooks when it has
 * any, so an app's user model needs no hook for its creation time.
 */
export class UserTable {
  readonly info: ModelInfo;
  private readonly repository: CrudRepository;

  constructor(
    private readonly knex: Knex,
    readonly model: ModelClass,
    readonly columns: UserColumns,
  ) {
    this.info = modelInfo(model);
    this.repository = new CrudRepository(model);
  }

  /** The live (not soft-deleted) user with this id. */
  async findById(id: string | number): Promise<Row | null> {
    const key = this.idValue(id);
    if (key === null) return null;
    const row = await this.live().where(this.columns.id, key).first();
    return row ?? null;
  }

  /**
   * The live user a sign-in names: an identifier with `@` is an e-mail, anything else a
   * username (usernames may not contain `@`, so the two never collide). Matched after
   * NFKC and without regard to case, the same on every engine; an exact match wins when
   * case variants exist. A value longer than its column, or holding NUL, names nobody.
   */
  async findForLogin(identifier: string): Promise<Row | null> {
    const column = identifier.includes('@') && this.columns.email ? this.columns.email : this.columns.username;
    const normalized = normalizeIdentifier(identifier);
    const max = this.info.columns.get(column)?.maxLength;
    if ((max !== undefined && normalized.length > max * 2) || normalized.includes('\u0000')) return null;
    const query = this.live();
    await this.whereFolded(query, column, normalized);
    const rows: Row[] = await query.orderBy(this.columns.id).limit(5);
    return rows.find((r) => r[column] === normalized) ?? rows[0] ?? null;
  }

  /** Whether another user (soft-deleted ones included) holds this value, after NFKC and ignoring case. */
  async taken(column: string, value: string, exceptId?: string | number): Promise<boolean> {
    const query = this.knex(this.info.table);
    await this.whereFolded(query, column, normalizeIdentifier(value));
    if (exceptId !== undefined) query.whereNot(this.columns.id, exceptId);
    return (await query.first(this.columns.id)) !== undefined;
  }

  /**
   * `column` equals `value` (already normalised) without regard to case. PostgreSQL's
   * lower() follows the database's character type (Unicode on a UTF-8 one); MariaDB's
   * follows the column's character set, compared in utf8mb4_bin so accents still count
   * (its default collation would also equate `é` and `e`); on SQLite, whose lower() is
   * ASCII-only, a function of ours folds as JavaScript does.
   */
  private async whereFolded(query: Knex.QueryBuilder, column: string, value: string): Promise<void> {
    switch (dialectOf(this.knex)) {
      case 'pg':
        query.whereRaw('lower(??) = lower(?)', [column, value]);
        return;
      case 'mysql':
        query.whereRaw('lower(??) collate utf8mb4_bin = lower(?)', [column, value]);
        return;
      default:
        if (await this.sqliteFold()) query.whereRaw(`${SQLITE_FOLD}(??) = ?`, [column, foldIdentifier(value)]);
        else query.whereRaw('lower(??) = ?', [column, value.toLowerCase()]);
    }
  }

  /** Registers the fold function on the better-sqlite3 connection; false on another driver. */
  private async sqliteFold(): Promise<boolean> {
    const client = this.knex.client as {
      driverName?: string;
      acquireConnection(): Promise<any>;
      releaseConnection(c: unknown): Promise<unknown>;
    };
    if (client.driverName !== 'better-sqlite3') return false;
    const connection = await client.acquireConnection();
    try {
      if (!folded.has(connection)) {
        connection.function(SQLITE_FOLD, { deterministic: true }, (v: unknown) =>
          v == null ? null : foldIdentifier(String(v)),
        );
        folded.add(connection);
      }
    } finally {
      await client.releaseConnection(connection);
    }
    return true;
  }

  /** Inserts a user and answers the stored row. */
  async insert(values: Row): Promise<Row> {
    return this.repository.create(this.knex, { [this.columns.tokenVersion]: 0, ...values });
  }

  /** Stores a new password hash; with `bump`, also kills every access token issued before. */
  async setPasswordHash(id: string | number, hash: string, bump: boolean): Promise<void> {
    const values: Row = { [this.columns.passwordHash]: hash };
    if (bump) values[this.columns.tokenVersion] = this.knex.raw('?? + 1', [this.columns.tokenVersion]);
    await this.knex(this.info.table).where(this.columns.id, id).update(values);
  }

  /** Removes the user's password (it signs in otherwise until it sets one) and kills every access token issued before. */
  async clearPasswordHash(id: string | number): Promise<void> {
    await this.knex(this.info.table)
      .where(this.columns.id, id)
      .update({
        [this.columns.passwordHash]: null,
        [this.columns.tokenVersion]: this.knex.raw('?? + 1', [this.columns.tokenVersion]),
      });
  }

  /** Kills every access token issued to the user so far (through `db` when given: a transaction). */
  async bumpTokenVersion(id: string | number, db: Knex = this.knex): Promise<void> {
    await db(this.info.table).where(this.columns.id, id).increment(this.columns.tokenVersion, 1);
  }

  /** The row without its password hash: what dependencies hand to handlers. */
  publicView(row: Row): AccountUser {
    const { [this.columns.passwordHash]: _hash, ...rest } = row;
    return rest as AccountUser;
  }

  idOf(row: Row): string | number {
    return row[this.columns.id] as string | number;
  }

  tokenVersionOf(row: Row): number {
    return Number(row[this.columns.tokenVersion] ?? 0);
  }

  flag(row: Row, column: string | null): boolean {
    if (!column) return false;
    const value = row[column];
    return value === true || value === 1 || value === '1' || value === 't';
  }

  private live(): Knex.QueryBuilder {
    const query = this.knex(this.info.table);
    const deleted = this.columns.isDeleted;
    if (deleted) query.where((q) => q.where(deleted, false).orWhereNull(deleted));
    return query;
  }

  // Integer keys are compared as integers: a malformed id never reaches SQL.
  private idValue(id: string | number): string | number | null {
    const column = this.info.columns.get(this.columns.id);
    if (column?.kind !== 'integer') return String(id);
    const text = String(id);
    if (!/^\d{1,15}$/.test(text)) return null;
    return Number(text);
  }
}
