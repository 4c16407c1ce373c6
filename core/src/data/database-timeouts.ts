import type { Knex } from 'knex';
import { DatabaseUnavailableError, isDatabaseUnreachable } from '../errors/database-error';
import { HttpError } from '../errors/http-error';
import { dialectClass, dialectQuery, isDisposed, markDisposed } from './knex-internals';
import { Liveness } from './liveness';
import { sendPgCancel, type PgCancelKey } from './pg-cancel';

/** How long the database may take before a request gives up with a 503; every field optional. */
export interface DatabaseTimeouts {
  /** Longest wait to open a connection, in ms (default 5000). */
  connectMs?: number;
  /** Longest wait for a free connection of the pool, in ms (default 10000). */
  acquireMs?: number;
  /** Longest run of one statement, in ms (default 30000); the server is asked to cancel it and the connection is dropped past it. */
  statementMs?: number;
  /**
   * Longest a statement waits on a server that has stopped answering, in ms (default 4000):
   * a statement still running after a second has a fresh connection check that the server
   * answers, and gives up when that check fails within the rest of this bound.
   */
  unresponsiveMs?: number;
}

/** The timeouts `withDatabaseTimeouts` applies where none is given. */
export const DEFAULT_DATABASE_TIMEOUTS: Required<DatabaseTimeouts> = {
  connectMs: 5000,
  acquireMs: 10000,
  statementMs: 30000,
  unresponsiveMs: 4000,
};

type RawConnection = object & PgCancelKey;
type KnexQuery = (
  connection: unknown,
  query: { sql: string; bindings: unknown[]; options: object },
) => Promise<unknown>;
const SERVER_CLIENTS = new Set(['pg', 'postgres', 'postgresql', 'mysql', 'mysql2']);
const PG_CLIENTS = new Set(['pg', 'postgres', 'postgresql']);

/** How a bounded client gives up on a statement. */
interface Bounds {
  timeouts: Required<DatabaseTimeouts>;
  /** Absent on an embedded engine: nothing to probe. */
  liveness?: Liveness;
  cancel(connection: RawConnection): void;
}

/**
 * A knex config whose every wait is bounded. Without it a database behind a network cut
 * holds each request for minutes: a connection attempt waits for the operating system's
 * TCP timeout, and a query on a connection that went silent waits for ever. Here:
 * - opening a connection gives up after `connectMs` (the driver's own connect timeout);
 * - waiting for a free pooled connection gives up after `acquireMs`;
 * - a statement gives up after `statementMs` on the client, and PostgreSQL is sent a
 *   cancel request for it (as psql's Ctrl-C, which PgBouncer passes on in every pool mode),
 *   so it stops holding locks; nothing travels as a start-up parameter, which PgBouncer
 *   refuses;
 * - a statement still running after a second has its server checked on a fresh connection,
 *   and gives up when the server does not answer within `unresponsiveMs` of the start: a
 *   silent outage answers in seconds, a slow statement on a live server runs on;
 * - a connection given up on is dropped, never reused, so the pool refills with fresh
 *   connections once the database answers again, without a restart.
 * Every such failure, and any failure to open a connection, is a DatabaseUnavailableError
 * (503 with `Retry-After`), as is a query failing on a connection the driver reports dead.
 */
export function withDatabaseTimeouts(config: Knex.Config, timeouts: DatabaseTimeouts = {}): Knex.Config {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...definedOnly(timeouts) };
  for (const [name, value] of Object.entries(t)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be a positive integer (ms), got ${value}`);
  }
  if (typeof config.client !== 'string')
    throw new TypeError('withDatabaseTimeouts needs the client by name (pg, mysql2, better-sqlite3, ...)');
  const name = config.client;
  const Base = dialectClass(name);
  const server = SERVER_CLIENTS.has(name);
  const cancels = PG_CLIENTS.has(name);
  let bounds: Bounds | undefined;
  const bounded = class extends Base {
    constructor(config: Knex.Config) {
      super(config);
      // Kept by the class, one per withDatabaseTimeouts call: transaction and migration
      // clients are made from its prototype without running this constructor.
      if (bounds) return;
      bounds = {
        timeouts: t,
        liveness: server
          ? new Liveness({
              open: () => Base.prototype.acquireRawConnection.call(this),
              ask: (connection) =>
                dialectQuery<KnexQuery>(Base).call(this, connection, { sql: 'select 1', bindings: [], options: {} }),
              close: (connection) => this.destroyRawConnection(connection),
            })
          : undefined,
        cancel: (connection) => {
          if (cancels) sendPgCancel(this.driver, this.connectionSettings, connection, t.connectMs);
        },
      };
    }

    override async acquireRawConnection(): Promise<unknown> {
      try {
        return await super.acquireRawConnection();
      } catch (error) {
        throw new DatabaseUnavailableError('The database cannot be reached; try again shortly', { cause: error });
      }
    }

    override query(connection: RawConnection, query: unknown): Promise<unknown> {
      return boundQuery(bounds!, super.query(connection, query), connection);
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

// A statement still running after this long has its server checked (or half the
// unresponsive bound, when that is shorter).
const CHECK_AFTER_MS = 1000;

// A query that outlives its bound, or whose server stopped answering, rejects at once; its
// connection is marked as knex marks a dead one, so the pool destroys it instead of handing
// it out again, and PostgreSQL is asked to cancel the statement. One timer per query.
function boundQuery(bounds: Bounds, run: Promise<unknown>, connection: RawConnection): Promise<unknown> {
  const { statementMs, unresponsiveMs } = bounds.timeouts;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout;
    const giveUp = (error: DatabaseUnavailableError) => {
      if (settled) return;
      settled = true;
      markDisposed(connection, error);
      bounds.cancel(connection);
      reject(error);
    };
    const tick = () => {
      const left = statementMs - (Date.now() - started);
      if (left <= 0)
        return giveUp(
          new DatabaseUnavailableError(`The database did not answer within ${statementMs} ms; try again shortly`),
        );
      if (!bounds.liveness) return void (timer = setTimeout(tick, left));
      void bounds.liveness
        .check(Math.min(left, unresponsiveMs - Math.min(CHECK_AFTER_MS, unresponsiveMs / 2)))
        .then((alive) => {
          if (settled) return;
          if (!alive) return giveUp(new DatabaseUnavailableError('The database does not answer; try again shortly'));
          timer = setTimeout(tick, Math.max(0, Math.min(unresponsiveMs, statementMs - (Date.now() - started))));
        });
    };
    timer = setTimeout(
      tick,
      Math.min(statementMs, bounds.liveness ? Math.min(CHECK_AFTER_MS, unresponsiveMs / 2) : statementMs),
    );
    run.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        // The driver's late failure after the bound has nobody waiting for it.
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // The driver reported this connection dead (reset, ended), or the failure is one: whatever it says, it was not the query's fault.
        if ((isDisposed(connection) || isDatabaseUnreachable(error)) && !(error instanceof HttpError))
          reject(new DatabaseUnavailableError(undefined, { cause: error }));
        else reject(error);
      },
    );
  });
}

function withDriverTimeouts(
  client: string,
  connection: Knex.Config['connection'],
  t: Required<DatabaseTimeouts>,
): Knex.Config['connection'] {
  if (typeof connection === 'function' || connection === undefined) return connection;
  const given = typeof connection === 'string' ? { connectionString: connection } : connection;
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') {
    // No statement_timeout here: it would travel as a start-up parameter, which PgBouncer
    // refuses; the statement is cancelled from the client instead (boundQuery).
    return { connectionTimeoutMillis: t.connectMs, ...given } as Knex.Config['connection'];
  }
  if (client === 'mysql2' || client === 'mysql') {
    if (typeof connection === 'string')
      return { uri: connection, connectTimeout: t.connectMs } as Knex.Config['connection'];
    return { connectTimeout: t.connectMs, ...given } as Knex.Config['connection'];
  }
  return connection;
}

function definedOnly(timeouts: DatabaseTimeouts): DatabaseTimeouts {
  return Object.fromEntries(Object.entries(timeouts).filter(([, value]) => value !== undefined));
}
