import type { Knex } from 'knex';
import { DatabaseUnavailableError, isDatabaseUnreachable } from '../errors/database-error';
import { HttpError } from '../errors/http-error';

/** How long the database may take before a request gives up with a 503; every field optional. */
export interface DatabaseTimeouts {
  /** Longest wait to open a connection, in ms (default 5000). */
  connectMs?: number;
  /** Longest wait for a free connection of the pool, in ms (default 10000). */
  acquireMs?: number;
  /** Longest run of one statement, in ms (default 30000); the connection is dropped past it. */
  statementMs?: number;
}

/** The timeouts `withDatabaseTimeouts` applies where none is given. */
export const DEFAULT_DATABASE_TIMEOUTS: Required<DatabaseTimeouts> = { connectMs: 5000, acquireMs: 10000, statementMs: 30000 };

// knex's dialect classes (a documented way to pass a client is a class extending one).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getDialectByNameOrAlias } = require('knex/lib/dialects') as { getDialectByNameOrAlias(name: string): KnexClientClass };

type RawConnection = { __knex__disposed?: unknown };
type KnexClientClass = new (config: Knex.Config) => {
  acquireRawConnection(): Promise<unknown>;
  query(connection: RawConnection, query: unknown): Promise<unknown>;
};

/**
 * A knex config whose every wait is bounded. Without it a database behind a network cut
 * holds each request for minutes: a connection attempt waits for the operating system's
 * TCP timeout, and a query on a connection that went silent waits for ever. Here:
 * - opening a connection gives up after `connectMs` (the driver's own connect timeout);
 * - waiting for a free pooled connection gives up after `acquireMs`;
 * - a statement gives up after `statementMs` on the client (PostgreSQL also cancels it on
 *   the server); its connection is then dropped, never reused, so the pool refills with
 *   fresh connections once the database answers again, without a restart.
 * Every such failure, and any failure to open a connection, is a DatabaseUnavailableError
 * (503 with `Retry-After`), as is a query failing on a connection the driver reports dead.
 */
export function withDatabaseTimeouts(config: Knex.Config, timeouts: DatabaseTimeouts = {}): Knex.Config {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...definedOnly(timeouts) };
  for (const [name, value] of Object.entries(t)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (ms), got ${value}`);
  }
  if (typeof config.client !== 'string') throw new TypeError('withDatabaseTimeouts needs the client by name (pg, mysql2, better-sqlite3, ...)');
  const name = config.client;
  const Base = getDialectByNameOrAlias(name);
  const bounded = class extends Base {
    override async acquireRawConnection(): Promise<unknown> {
      try {
        return await super.acquireRawConnection();
      } catch (error) {
        throw new DatabaseUnavailableError('The database cannot be reached; try again shortly', { cause: error });
      }
    }

    override query(connection: RawConnection, query: unknown): Promise<unknown> {
      return boundQuery(super.query(connection, query), connection, t.statementMs);
    }
  };
  return {
    ...config,
    client: bounded as unknown as typeof Knex.Client,
    connection: withDriverTimeouts(name, config.connection, t),
    acquireConnectionTimeout: t.acquireMs,
    // A connection attempt never outlives its own timeout in the pool either.
    pool: { createTimeoutMillis: t.connectMs + 1000, ...config.pool },
  };
}

// A query that outlives the bound rejects at once, and its connection is marked as knex
// marks a dead one, so the pool destroys it instead of handing it out again.
function boundQuery(run: Promise<unknown>, connection: RawConnection, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DatabaseUnavailableError(`The database did not answer within ${ms} ms; try again shortly`);
      connection.__knex__disposed = error;
      reject(error);
    }, ms);
  });
  // The driver's late answer (or failure) after the bound has nobody waiting for it.
  run.catch(() => {});
  const answered = run.catch((error: unknown) => {
    // The driver reported this connection dead (reset, ended), or the failure is one: whatever it says, it was not the query's fault.
    if ((connection.__knex__disposed || isDatabaseUnreachable(error)) && !(error instanceof HttpError)) throw new DatabaseUnavailableError(undefined, { cause: error });
    throw error;
  });
  return Promise.race([answered, timeout]).finally(() => clearTimeout(timer));
}

function withDriverTimeouts(client: string, connection: Knex.Config['connection'], t: Required<DatabaseTimeouts>): Knex.Config['connection'] {
  if (typeof connection === 'function' || connection === undefined) return connection;
  const given = typeof connection === 'string' ? { connectionString: connection } : connection;
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') {
    // statement_timeout: the server cancels the statement too, so it stops holding locks.
    return { connectionTimeoutMillis: t.connectMs, statement_timeout: t.statementMs, ...given } as Knex.Config['connection'];
  }
  if (client === 'mysql2' || client === 'mysql') {
    if (typeof connection === 'string') return { uri: connection, connectTimeout: t.connectMs } as Knex.Config['connection'];
    return { connectTimeout: t.connectMs, ...given } as Knex.Config['connection'];
  }
  return connection;
}

function definedOnly(timeouts: DatabaseTimeouts): DatabaseTimeouts {
  return Object.fromEntries(Object.entries(timeouts).filter(([, value]) => value !== undefined));
}
