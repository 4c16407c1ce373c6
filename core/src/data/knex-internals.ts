import type { Knex } from 'knex';

// knex's private surface, named in this one file: its dialect table, a dialect's own
// `_query` and binding formatter, the marks it puts on connections and compiled queries,
// its directory migration source, and the query builder's fields (read by the builder
// walk in `builder-shape.ts`). knex exports none of these. The fast paths built on them
// are worth their risk only while an upgrade that moves one fails loudly in one place:
// test/core/internals.test.ts asserts every name here against the installed knex.

/** The parts of a knex query builder the builder walk reads (knex's own, untyped, fields). */
export interface Builder {
  client: {
    config: object;
    raw(sql: string, bindings: unknown[]): RawLike;
    positionBindings(sql: string): string;
    prepBindings(b: unknown[]): unknown[];
  };
  _method: string;
  _single: Record<string, unknown>;
  _statements: Statement[];
  _comments?: unknown[];
  _options?: unknown[];
  _queryContext?: unknown;
  _timeout?: number;
  toSQL(method?: string, tz?: unknown): CompiledQuery;
}

/** One clause a builder holds, as knex keeps it in `_statements`. */
export interface Statement {
  grouping: string;
  type?: string;
  value?: unknown;
  [key: string]: unknown;
}

/** A `knex.raw` value, as a builder holds it. */
export interface RawLike {
  isRawInstance: true;
  sql: string;
  bindings?: unknown;
  [key: string]: unknown;
}

/** A query as knex's compiler makes it for its runner. */
export interface CompiledQuery {
  method: string;
  sql: string;
  bindings: unknown[];
  [key: string]: unknown;
}

/** The name knex's runner and query events read a compiled query's id under. */
export const QUERY_UID = '__knexQueryUid';

/** The method a builder will compile (`select`, `first`, `insert`, ...). */
export const methodOf = (builder: Builder): string => builder._method;

/** A dialect's client class, as knex's dialect table gives it for a client name or alias. */
export type KnexClientClass = new (config: Knex.Config) => {
  acquireRawConnection(): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<unknown>;
  query(connection: unknown, query: unknown): Promise<unknown>;
  driver: unknown;
  connectionSettings: unknown;
};

type QueryFunction = (...args: never[]) => unknown;

// knex/lib/dialects: the table knex itself builds clients from.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getDialectByNameOrAlias } = require('knex/lib/dialects') as {
  getDialectByNameOrAlias(name: string): KnexClientClass & { prototype: { _query: QueryFunction } };
};

/** knex's client class for a client name (a documented way to pass a client is a class extending one). */
export function dialectClass(name: string): KnexClientClass {
  return getDialectByNameOrAlias(name);
}

/** A dialect class's own `_query`: sends one query on a raw connection, bypassing the client's wrappers. */
export function dialectQuery<F extends QueryFunction>(dialect: KnexClientClass): F {
  return (dialect.prototype as unknown as { _query: F })._query;
}

const own = new Map<string, QueryFunction>();

/** knex's own `_query` of the driver's dialect, looked up on first use (an engine never loads another's dialect). */
export function knexQueryOf<F extends QueryFunction>(driver: string): F {
  let query = own.get(driver);
  if (!query) own.set(driver, (query = getDialectByNameOrAlias(driver).prototype._query));
  return query as F;
}

/**
 * Puts `hook` in place of the client's `_query` when the client is the driver's and its
 * `_query` is knex's own (a subclass overriding it is left alone); idempotent. Wrapped per
 * client instance: a transaction's client is a fresh one over the same connection.
 */
export function hookKnexQuery(client: object, driver: string, hook: QueryFunction): void {
  const c = client as { driverName?: string; _query: QueryFunction };
  if (c.driverName !== driver || c._query === hook) return;
  if (c._query === knexQueryOf(driver)) c._query = hook;
}

/** The bindings of a query as the client hands them to its driver (dates, booleans and the like converted). */
export function formatBindings(client: object, bindings: unknown[] | undefined): unknown[] {
  return (client as { _formatBindings(b: unknown[] | undefined): unknown[] })._formatBindings(bindings);
}

type MarkedConnection = { __knex__disposed?: unknown; __knexTxId?: string };

/** Marks a raw connection as knex marks a dead one: its pool destroys it rather than handing it out again. */
export function markDisposed(connection: object, reason: unknown): void {
  (connection as MarkedConnection).__knex__disposed = reason;
}

/** Whether knex (or `markDisposed`) has marked the raw connection dead. */
export function isDisposed(connection: object): boolean {
  return Boolean((connection as MarkedConnection).__knex__disposed);
}

/** Whether a knex transaction holds the raw connection (a failed statement has aborted it). */
export function inKnexTransaction(connection: object): boolean {
  return (connection as MarkedConnection).__knexTxId !== undefined;
}

/** knex's directory migration source, the one its migrator builds for `directory` (knex exports no name for it). */
export function fsMigrations(
  directory: string | string[],
  sortDirsSeparately: boolean,
  loadExtensions: string[] | undefined,
): Knex.MigrationSource<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FsMigrations } = require('knex/lib/migrations/migrate/sources/fs-migrations') as {
    FsMigrations: new (
      directory: string | string[],
      sortDirsSeparately: boolean,
      loadExtensions?: string[],
    ) => Knex.MigrationSource<unknown>;
  };
  return new FsMigrations(directory, sortDirsSeparately, loadExtensions);
}
