import type { Knex } from 'knex';
import { rateLimit, type RateLimitPlugin, type RateLimitLogger, type RateLimitSettings } from '@crudsmith/rate-limit';
import { createRedisClient, RedisStore, type RedisClient } from '@crudsmith/rate-limit/redis';

/**
 * Every route under these prefixes is limited. Prefixes that no route
 * serves yet cost nothing: the guard checks the matched route, so posts and the v2
 * routes are limited from the moment they are mounted.
 */
export const LIMITED_PATHS = ['/api/v1/items', '/api/v1/posts', '/api/v2/items', '/api/v2/users', '/api/v2/posts'];

/** How the example counts requests (`rateLimitSettings(env)` reads them; all optional). */
export interface ExampleRateLimitOptions {
  /** DEFAULT_RATE_LIMIT_LIMIT, default 100. */
  defaultLimit?: number;
  /** DEFAULT_RATE_LIMIT_PERIOD in seconds, default 3600. */
  defaultPeriod?: number;
  /** Counters in Redis, shared by every process; in this process's memory when absent. */
  redis?: RedisClient;
  logger?: RateLimitLogger;
}

/** The example's limiter over `LIMITED_PATHS`, its tiers in the app's database. */
export function exampleRateLimit(knex: Knex, options: ExampleRateLimitOptions = {}): RateLimitPlugin {
  return rateLimit({
    knex,
    store: options.redis ? new RedisStore(options.redis) : 'memory',
    defaultLimit: options.defaultLimit,
    defaultPeriod: options.defaultPeriod,
    paths: LIMITED_PATHS,
    logger: options.logger,
  });
}

/**
 * The counters' Redis when the settings name one (KVSTORE_RATE_LIMITER_*, REDIS_CLUSTER_NODES or REDIS_URL): a
 * client of its own, tuned to fail fast, so a Redis outage never holds a request.
 */
export function openRateLimitRedis(
  settings: RateLimitSettings,
): { client: RedisClient; close(): Promise<void> } | undefined {
  if (!settings.redis) return undefined;
  const client = createRedisClient(settings.redis);
  // The limiter reports outages itself (once a minute); ioredis would print every retry.
  client.on('error', () => {});
  return { client, close: async () => void (await client.quit().catch(() => client.disconnect())) };
}
