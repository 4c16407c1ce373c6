import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { RedisConnection } from './settings';

/** What the limiter counts in: one Redis, or a Redis Cluster (each counter is one key). */
export type RedisClient = Redis | Cluster;

/**
 * An ioredis client tuned for the limiter: commands fail at once while Redis is down
 * (no offline queue, one retry) instead of holding requests, and reconnection is tried
 * at least every second so a returning Redis is used again without a restart. A
 * `{ cluster }` connection gives an ioredis Cluster tuned the same way.
 */
export function createRedisClient(
  connection: Exclude<RedisConnection, { cluster: unknown }>,
  options?: RedisOptions,
): Redis;
export function createRedisClient(
  connection: Extract<RedisConnection, { cluster: unknown }>,
  options?: RedisOptions,
): Cluster;
export function createRedisClient(connection: RedisConnection, options?: RedisOptions): RedisClient;
export function createRedisClient(connection: RedisConnection, options: RedisOptions = {}): RedisClient {
  const tuned: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    ...options,
  };
  // ioredis is an optional peer: required here, when a client is asked for, so the plugin
  // loads in an app without it (counters in memory).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: Client, Cluster: ClusterClient } = require('ioredis') as typeof import('ioredis');
  const client: RedisClient =
    'cluster' in connection
      ? new ClusterClient(connection.cluster, {
          enableOfflineQueue: false,
          clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
          redisOptions: tuned,
        })
      : 'url' in connection
        ? new Client(connection.url, { ...tuned, ...(connection.db === undefined ? {} : { db: connection.db }) })
        : new Client({ ...tuned, host: connection.host, port: connection.port, db: connection.db });
  // Without a listener ioredis prints "Unhandled error event" at every failed reconnection;
  // the limiter reports store outages itself, once a minute.
  client.on('error', () => {});
  return client;
}
