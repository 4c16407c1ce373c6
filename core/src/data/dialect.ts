import type { Knex } from 'knex';

/** The SQL engines crudsmith speaks to; each differs in LIKE, NULL order and full-text search. */
export type Dialect = 'pg' | 'mysql' | 'sqlite';

const cache = new WeakMap<object, Dialect>();

/** Which engine a knex instance (or transaction) talks to. */
export function dialectOf(db: Knex): Dialect {
  const client = db.client as { dialect?: string; config?: { client?: unknown } };
  let dialect = cache.get(client);
  if (!dialect) {
    const name = String(client.dialect ?? client.config?.client ?? '');
    if (/postgres|pg|redshift|cockroach/.test(name)) dialect = 'pg';
    else if (/mysql|maria/.test(name)) dialect = 'mysql';
    else if (/sqlite/.test(name)) dialect = 'sqlite';
    else throw new Error(`crudsmith does not know the SQL dialect '${name}' (supported: PostgreSQL, MySQL/MariaDB, SQLite)`);
    cache.set(client, dialect);
  }
  return dialect;
}
