import type { Knex } from 'knex';
import type { Cluster, Redis } from 'ioredis';
import type { RedisConnection } from '@crudsmith/rate-limit';
import { failureReason as reason } from './outage-log';
import type { SessionRedis } from './session-store';

/**
 * A service the settings name cannot be reached at start-up. Its message is one line that
 * names the setting to fix; `main` prints it alone (no stack) and exits non-zero.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** What the start-up check looks at: the database, and the Redis clients the settings opened. */
export interface StartupServices {
  knex: Knex;
  databaseUrl?: string;
  /** The sessions' Redis (REDIS_URL or REDIS_CLUSTER_NODES). */
  sessions?: { client: Redis | Cluster; where: SessionRedis; timeoutMs: number };
  /** The rate limiter's Redis (KVSTORE_RATE_LIMITER_*, REDIS_CLUSTER_NODES or REDIS_URL). */
  counters?: { client: Redis | Cluster; connection: RedisConnection; timeoutMs: number };
}

/**
 * Checks every configured service before migrations run, all at once, so a wrong setting
 * fails the start within the connect timeouts, saying which setting, instead of a stack
 * trace or a process that starts and fails every request later.
 */
export async function checkServices(services: StartupServices): Promise<void> {
  const checks: Promise<void>[] = [checkDatabase(services.knex, services.databaseUrl)];
  if (services.sessions) {
    const at = services.sessions.where;
    const [setting, place] =
      'cluster' in at ? ['REDIS_CLUSTER_NODES', nodeList(at.cluster)] : ['REDIS_URL', where(at.url)];
    checks.push(checkRedis(services.sessions.client, setting, place, services.sessions.timeoutMs));
  }
  if (services.counters) {
    const { connection } = services.counters;
    const [setting, at] =
      'cluster' in connection
        ? ['KVSTORE_RATE_LIMITER_CLUSTER_NODES or REDIS_CLUSTER_NODES', nodeList(connection.cluster)]
        : 'url' in connection
          ? ['REDIS_URL', where(connection.url)]
          : ['KVSTORE_RATE_LIMITER_HOST/_PORT', `${connection.host}:${connection.port}`];
    checks.push(checkRedis(services.counters.client, setting, at, services.counters.timeoutMs));
  }
  const failed = (await Promise.allSettled(checks)).filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0)
    throw new StartupError(failed.map((r) => (r.reason as Error).message).join('; '), { cause: failed[0].reason });
}

async function checkDatabase(knex: Knex, url: string | undefined): Promise<void> {
  try {
    await knex.raw('select 1');
  } catch (error) {
    const setting = url
      ? `DATABASE_URL: cannot reach the database at ${where(url)}`
      : 'DATA_DIR: cannot open the SQLite database';
    throw new StartupError(`${setting} (${reason(error)})`, { cause: error });
  }
}

// Ready within the timeout, or the first connection error: a refused port fails at once.
function checkRedis(client: Redis | Cluster, setting: string, at: string, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: unknown) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', done);
      if (error === undefined) resolve();
      else reject(new StartupError(`${setting}: cannot reach Redis at ${at} (${reason(error)})`, { cause: error }));
    };
    const onReady = () => done();
    const timer = setTimeout(() => done(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    client.once('ready', onReady);
    client.once('error', done);
  });
}

// host:port of a URL: never its user or password.
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host || parsed.pathname;
  } catch {
    return 'the configured address';
  }
}

// The nodes of a cluster setting, as given (host:port only, nothing secret).
function nodeList(nodes: { host: string; port: number }[]): string {
  return nodes.map((n) => `${n.host}:${n.port}`).join(',');
}
