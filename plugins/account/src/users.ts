import type { Knex } from 'knex';
import { ConfigurationError, CrudRepository, modelInfo, type ModelClass, type ModelInfo } from '@crudsmith/core';
import type { AccountUser, UserColumns } from './options';

type Row = Record<string, unknown>;

/** Resolves the column map against the model: defaults for what exists, errors for what does not. */
export function resolveColumns(model: ModelClass, given: Partial<UserColumns> = {}): UserColumns {
  const info = modelInfo(model);
  const has = (name: string) => info.columns.has(name);
  const optional = (key: keyof UserColumns, fallback: string) => (key in given ? given[key] ?? null : has(fallback) ? fallback : null);
  const columns: UserColumns = {
    id: given.id ?? info.idColumn,
    username: given.username ?? 'username',
    email: optional('email', 'email'),
    passwordHash: given.passwordHash ?? 'hashed_password',
    isSuperuser: optional('isSuperuser', 'is_superuser'),
    isVerified: optional('isVerified', 'is_verified'),
    isDeleted: optional('isDeleted', 'is_deleted'),
    tokenVersion: given.tokenVersion ?? 'token_version',
    tierId: optional('tierId', 'tier_id'),
  };
  for (const [role, column] of Object.entries(columns)) {
    if (column !== null && !has(column)) {
      throw new ConfigurationError(`account: column '${column}' (${role}) not found in model ${model.name}'s jsonSchema`);
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
   * username (usernames may not contain `@`, so the two never collide). Matched without
   * regard to case; an exact match wins when case variants exist.
   */
  async findForLogin(identifier: string): Promise<Row | null> {
    const column = identifier.includes('@') && this.columns.email ? this.columns.email : this.columns.username;
    const rows: Row[] = await this.live().whereRaw('lower(??) = ?', [column, identifier.toLowerCase()]).orderBy(this.columns.id).limit(5);
    return rows.find((r) => r[column] === identifier) ?? rows[0] ?? null;
  }

  /** Whether another user (soft-deleted ones included) holds this value, ignoring case. */
  async taken(column: string, value: string, exceptId?: string | number): Promise<boolean> {
    const query = this.knex(this.info.table).whereRaw('lower(??) = ?', [column, value.toLowerCase()]);
    if (exceptId !== undefined) query.whereNot(this.columns.id, exceptId);
    return (await query.first(this.columns.id)) !== undefined;
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

  /** Kills every access token issued to the user so far. */
  async bumpTokenVersion(id: string | number): Promise<void> {
    await this.knex(this.info.table).where(this.columns.id, id).increment(this.columns.tokenVersion, 1);
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
