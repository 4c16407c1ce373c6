import type { Knex } from 'knex';

/** The SQL engines crudsmith speaks to; each differs in LIKE, NULL order and full-text search. */
export type Dialect = 'pg' | 'mysql' | 'sqlite';

const cache = new WeakMap<object, Dialect>();

/** Which engine a knex instance (or transaction) talks to. */
export function dialectOf(db: Knex): Dialect {
  const client = db.client as { dialect?: string; config?: { client?: unknown } };
  // Keyed by the client's config: a transaction's client is a new object every time, but
  // shares its parent's config.
  const key = client.config ?? client;
  let dialect = cache.get(key);
  if (!dialect) {
    const name = String(client.dialect ?? client.config?.client ?? '');
    if (/postgres|pg|redshift|cockroach/.test(name)) dialect = 'pg';
    else if (/mysql|maria/.test(name)) dialect = 'mysql';
    else if (/sqlite/.test(name)) dialect = 'sqlite';
    else
      throw new Error(
        `crudsmith does not know the SQL dialect '${name}' (supported: PostgreSQL, MySQL/MariaDB, SQLite)`,
      );
    cache.set(key, dialect);
  }
  return dialect;
}
