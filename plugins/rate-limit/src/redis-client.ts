import type { Redis, RedisOptions } from 'ioredis';
import type { RedisConnection } from './settings';

/**
 * An ioredis client tuned for the limiter: commands fail at once while Redis is down
 * (no offline queue, one retry) instead of holding requests, and reconnection is tried
 * at least every second so a returning Redis is used again without a restart.
 */
export function createRedisClient(connection: RedisConnection, options: RedisOptions = {}): Redis {
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
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  const client = 'url' in connection
    ? new Client(connection.url, { ...tuned, ...(connection.db === undefined ? {} : { db: connection.db }) })
    : new Client({ ...tuned, host: connection.host, port: connection.port, db: connection.db });
  // Without a listener ioredis prints "Unhandled error event" at every failed reconnection;
  // the limiter reports store outages itself, once a minute.
  client.on('error', () => {});
  return client;
}
