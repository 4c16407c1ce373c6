// knex's better-sqlite3 client prepares every statement afresh, and preparing costs
// nearly as much as running a short read. The SQL of a query the compiled-SQL cache
// answers is fixed for its shape, so its prepared statement can serve every later query
// of that shape on the same connection.
//
// The hook is the client's `_query`, wrapped on each client instance that runs such a
// query (a transaction's client is a fresh instance over the same connection, so it gets
// its own wrapper, and the statements it finds are the connection's). Wrapping the
// connection's `prepare` instead would see only the SQL text, and a user's query of the
// same text may change its statement (`safeIntegers`): only queries marked as answered
// by the cache take a kept statement, and they never change one. Everything else, and
// any client whose `_query` is not knex's own better-sqlite3 one (a subclass overriding
// it), runs exactly as before. Statements are kept per connection (a WeakMap, so a
// connection the pool drops takes them with it) and only the most recently used few
// hundred of them; SQLite itself re-prepares a kept statement after a schema change. A
// kept statement is prepared with its values written `+?` (sqlite-placeholders.ts), so
// that SQLite does not compile it again at every run to plan around the values bound.

import { formatBindings, hookKnexQuery, knexQueryOf } from './knex-internals';
import { FIXED_SQL } from './query-hook';
import { stablePlaceholders } from './sqlite-placeholders';

/** The most statements kept per connection; the least recently used one goes first. */
export const MAX_STATEMENTS = 300;

interface PreparedStatement {
  reader: boolean;
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

interface SqliteConnection {
  prepare(sql: string): PreparedStatement;
}

interface RunnableQuery {
  sql: string;
  bindings?: unknown[];
  response?: unknown;
  context?: unknown;
  [FIXED_SQL]?: true;
}

type QueryingClient = object;

type Query = (this: QueryingClient, connection: SqliteConnection, obj: RunnableQuery) => Promise<RunnableQuery>;
const statements = new WeakMap<SqliteConnection, Map<string, PreparedStatement>>();

/** Makes the client reuse prepared statements for fixed-SQL queries, when it is knex's better-sqlite3 client; idempotent. */
export function reusePreparedStatements(client: object): void {
  hookKnexQuery(client, 'better-sqlite3', queryReusing);
}

// knex's better-sqlite3 `_query`, with the statement taken from the connection's kept ones.
async function queryReusing(
  this: QueryingClient,
  connection: SqliteConnection,
  obj: RunnableQuery,
): Promise<RunnableQuery> {
  if (obj[FIXED_SQL] !== true || !obj.sql || !connection)
    return knexQueryOf<Query>('better-sqlite3').call(this, connection, obj);
  const statement = preparedFor(connection, obj.sql);
  const bindings = formatBindings(this, obj.bindings);
  if (statement.reader) {
    obj.response = statement.all(bindings);
    return obj;
  }
  const response = statement.run(bindings);
  obj.response = response;
  obj.context = { lastID: response.lastInsertRowid, changes: response.changes };
  return obj;
}

/** The connection's statement for the SQL, prepared on first use; a failed prepare is not kept. */
function preparedFor(connection: SqliteConnection, sql: string): PreparedStatement {
  let kept = statements.get(connection);
  if (!kept) statements.set(connection, (kept = new Map()));
  let statement = kept.get(sql);
  if (statement) {
    // A Map iterates in insertion order: moving a used statement last keeps the least recently used first.
    kept.delete(sql);
  } else {
    statement = connection.prepare(stablePlaceholders(sql));
    if (kept.size >= MAX_STATEMENTS) kept.delete(kept.keys().next().value!);
  }
  kept.set(sql, statement);
  return statement;
}

/** How many statements are kept for a connection (for tests). */
export function keptStatements(connection: object): number {
  return statements.get(connection as SqliteConnection)?.size ?? 0;
}
