import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { hookKnexQuery, inKnexTransaction, knexQueryOf } from './knex-internals';
import { FIXED_SQL } from './query-hook';

// PostgreSQL parses and plans every unnamed statement it receives. The SQL of a query the
// compiled-SQL cache answers is fixed for its shape, so it is sent as a named prepared
// statement instead: each connection parses it once, and every later query of that shape
// is only bound and executed (a third less time per round trip on a short read, and less
// work for the server). node-postgres keeps the names each connection has prepared.
//
// A pooler in front of PostgreSQL (PgBouncer in transaction mode before 1.21, and others)
// hands each transaction to whichever server connection is free: a name prepared on one
// is unknown on the next ("prepared statement does not exist", 26000), or already taken
// there by another client ("already exists", 42P05), and inside a transaction either
// failure aborts it. So names are used only on a connection known to reach PostgreSQL
// itself: the first time a connection would name a statement, it asks the server for its
// process id, and a pooler shows itself by having handed the client a cancel key of its
// own (PgBouncer always does, in every pool mode). Behind a pooler, no SQL of that knex
// configuration is named again.
//
// What can still make a kept statement fail where an unnamed one would not is handled by
// sending it unnamed from then on, and retrying it once unnamed outside a transaction
// (these fail before anything is executed):
// - the schema changed the columns it answers ("cached plan must not change result
//   type"): that SQL is no longer named, in this process;
// - 26000 or 42P05 all the same (a pooler that hides its keys): no SQL of that client is
//   named any more.
// `usePreparedStatements(knex, false)` turns naming off for a knex instance altogether.
// The hook is the client's `_query`, wrapped per client instance when it is knex's own
// pg one, as for better-sqlite3's kept statements; other queries run exactly as before.

interface PgConnection {
  query(
    config: { name?: string; text: string; values: unknown[] },
    callback: (error: Error | null, response: { rows: { pid: number }[] }) => void,
  ): void;
  processID?: number;
}

interface RunnableQuery {
  sql: string;
  bindings?: unknown[];
  response?: unknown;
  [FIXED_SQL]?: true;
}

interface PgClient {
  config: object;
}

type Query = (this: PgClient, connection: PgConnection, obj: RunnableQuery) => Promise<RunnableQuery>;
const knexQuery = (): Query => knexQueryOf<Query>('pg');
// Per knex configuration (a transaction's client shares its knex's config object).
const turnedOff = new WeakSet<object>();
// SQL whose kept statement went stale after a schema change: sent unnamed from then on.
const stale = new Set<string>();
// Connections that reach PostgreSQL directly (their cancel key names their server process).
const direct = new WeakSet<PgConnection>();
const names = new Map<string, string>();
// The compiled-SQL cache holds at most a thousand shapes per configuration; names beyond
// this many are computed again rather than kept.
const MAX_NAMES = 5000;

/** Turns named prepared statements for crudsmith's queries on (the default) or off, for one knex instance on PostgreSQL. */
export function usePreparedStatements(knex: Knex, enabled: boolean): void {
  const config = (knex.client as PgClient).config;
  if (enabled) turnedOff.delete(config);
  else turnedOff.add(config);
}

/** Makes the client send fixed-SQL queries as named prepared statements, when it is knex's pg client; idempotent. */
export function namePreparedStatements(client: object): void {
  hookKnexQuery(client, 'pg', queryNamed);
}

// knex's pg `_query`, with a name for a fixed-SQL query.
function queryNamed(this: PgClient, connection: PgConnection, obj: RunnableQuery): Promise<RunnableQuery> {
  if (obj[FIXED_SQL] !== true || !obj.sql || !connection || turnedOff.has(this.config) || stale.has(obj.sql))
    return knexQuery().call(this, connection, obj);
  if (!direct.has(connection)) {
    return new Promise((resolve, reject) => {
      connection.query({ text: 'select pg_backend_pid() as pid', values: [] }, (error, response) => {
        if (error) return reject(error);
        if (response.rows[0]?.pid === connection.processID) direct.add(connection);
        else turnedOff.add(this.config);
        resolve(queryNamed.call(this, connection, obj));
      });
    });
  }
  return new Promise((resolve, reject) => {
    connection.query({ name: nameOf(obj.sql), text: obj.sql, values: obj.bindings ?? [] }, (error, response) => {
      if (!error) {
        obj.response = response;
        resolve(obj);
        return;
      }
      const code = (error as { code?: string }).code;
      // 0A000 is how PostgreSQL refuses a kept plan whose result type changed; an unnamed
      // retry of any other 0A000 fails again and its error stands.
      if (code === '0A000') stale.add(obj.sql);
      else if (code === '26000' || code === '42P05') turnedOff.add(this.config);
      else return reject(error);
      // Inside a transaction the failure has aborted it: the error stands, the next query is unnamed.
      if (inKnexTransaction(connection)) return reject(error);
      resolve(knexQuery().call(this, connection, obj));
    });
  });
}

function nameOf(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    // Within PostgreSQL's 63 bytes, and the same in every process for the same SQL.
    name = `crudsmith_${createHash('sha256').update(sql).digest('base64url').slice(0, 32)}`;
    if (names.size < MAX_NAMES) names.set(sql, name);
  }
  return name;
}
