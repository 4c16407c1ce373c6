import { Cluster, Redis } from 'ioredis';
import type { SessionStore } from '@crudsmith/core/auth';
import { RedisSessionStore } from '@crudsmith/account/redis';
import { OutageLog } from './outage-log';

/** How long Redis may take: to connect (REDIS_CONNECT_TIMEOUT_MS, default 2000) and to answer one command (REDIS_COMMAND_TIMEOUT_MS, default 1000). */
export interface RedisTimeouts {
  connectMs: number;
  commandMs: number;
}

export const DEFAULT_REDIS_TIMEOUTS: RedisTimeouts = { connectMs: 2000, commandMs: 1000 };

/** The session store's Redis, its readiness check and its shutdown. */
export interface OpenedSessionStore {
  store: SessionStore;
  /** The client, for the start-up check. */
  client: Redis | Cluster;
  ping(): Promise<unknown>;
  close(): Promise<void>;
}

/** Where the sessions' Redis is: REDIS_URL, or the nodes of REDIS_CLUSTER_NODES. */
export type SessionRedis = { url: string } | { cluster: { host: string; port: number }[] };

/**
 * Sessions in Redis when REDIS_URL or REDIS_CLUSTER_NODES is set; undefined means the database. The client fails
 * fast while Redis is away (no offline queue, bounded connect and command times, a
 * reconnection at least every second so a returning Redis is used without a restart), and
 * its errors are reported once a minute (`log`), never as ioredis' "Unhandled error event".
 */
export function openSessionStore(
  where: SessionRedis | undefined,
  prefix?: string,
  options: { timeouts?: Partial<RedisTimeouts>; log?: (line: string) => void; waitReplicas?: number } = {},
): OpenedSessionStore | undefined {
  if (!where) return undefined;
  const timeouts = { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts };
  const tuned = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: timeouts.connectMs,
    commandTimeout: timeouts.commandMs,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  };
  // A cluster client follows slot moves and failovers itself; refreshed every few seconds so
  // a promoted replica is found even when no command was redirected to it.
  const redis =
    'cluster' in where
      ? new Cluster(where.cluster, {
          enableOfflineQueue: false,
          clusterRetryStrategy: tuned.retryStrategy,
          slotsRefreshInterval: 2000,
          redisOptions: tuned,
        })
      : new Redis(where.url, tuned);
  const outage = new OutageLog(
    `Redis of the sessions (${'cluster' in where ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'})`,
    options.log,
  );
  redis.on('error', (error) => outage.failed(error));
  redis.on('ready', () => outage.recovered());
  return {
    store: new RedisSessionStore(redis, {
      prefix,
      commandTimeoutMs: timeouts.commandMs,
      replicas: options.waitReplicas,
    }),
    client: redis,
    ping: () => redis.ping(),
    // disconnect when QUIT cannot be sent (Redis away): closing never waits on it.
    close: async () => void (await redis.quit().catch(() => redis.disconnect())),
  };
}
