// The repository's fixed-SQL queries (those the compiled-SQL cache answers) run through a
// client `_query` of crudsmith's on some drivers: kept statements on better-sqlite3, named
// ones on PostgreSQL. What those hooks share: the mark such a query carries, and the one
// safe way to put a hook in place.

/** Marks (on its prototype) a query whose SQL is fixed for its shape and whose statement options are none. */
export const FIXED_SQL = Symbol('crudsmith.fixedSql');

type QueryFunction = (...args: never[]) => unknown;

// knex's dialect classes, to recognise (and call) its own `_query` of a driver.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getDialectByNameOrAlias } = require('knex/lib/dialects') as {
  getDialectByNameOrAlias(name: string): { prototype: { _query: QueryFunction } };
};
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
