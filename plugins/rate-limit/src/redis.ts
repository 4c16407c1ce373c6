// @crudsmith/rate-limit/redis: counters and limit changes in Redis. Everything that names
// ioredis (an optional peer) lives here, so the main entry's declarations never need it:
// an app counting in memory compiles without ioredis installed.

/** Window counters in Redis, shared by every process: pass one as `rateLimit({ store })`. */
export { RedisStore } from './stores/redis-store';
export type { RedisStoreOptions } from './stores/redis-store';

/** "Limits changed" carried between processes over Redis pub/sub (the plugin starts one on a RedisStore's client). */
export { RedisInvalidation } from './tiers/invalidation';
export type { RedisInvalidationOptions } from './tiers/invalidation';

/** An ioredis client tuned to fail fast, from `rateLimitSettings().redis`. */
export { createRedisClient } from './redis-client';
export type { RedisClient } from './redis-client';
