// @crudsmith/rate-limit: tiers, per-path limits and a fixed-window counter.

/** The plugin factory and what it returns (the limiter dependency resolves to a RateLimitState). */
export { rateLimit } from './plugin';
export type { RateLimitOptions, RateLimitPlugin } from './plugin';
export type { RateLimitState } from './limiter';
export type { RateLimitLogger } from './logger';

/** The pure decision, keys and headers. */
export { decide, windowStart } from './decide';
export type { Decision, Policy } from './decide';
export { sanitizePath, rateLimitKey } from './keys';
export { rateLimitHeaders } from './headers';

/** Counter stores (RedisStore is in @crudsmith/rate-limit/redis). */
export { MemoryStore } from './stores/memory-store';
export type { MemoryStoreOptions } from './stores/memory-store';
export { StoreUnavailableError } from './stores/store';
export type { RateLimitStore } from './stores/store';

/** Tiers and limits: tables, models, the service behind the app's routes, and the cache. */
export { rateLimitMigrations } from './tiers/migrations';
export { Tier, RateLimit } from './tiers/models';
export { TierService } from './tiers/tier-service';
export type { TierRow, RateLimitRow } from './tiers/tier-service';
export type { TierInput, RateLimitInput } from './tiers/validate';
export { TierCache } from './tiers/tier-cache';
export type { TierCacheOptions, CachedRule } from './tiers/tier-cache';

/** Settings from the environment (`redis` is what @crudsmith/rate-limit/redis's createRedisClient takes). */
export { rateLimitSettings } from './settings';
export type { RateLimitSettings, RedisConnection } from './settings';
/** Parses `host:port,host:port,...` (REDIS_CLUSTER_NODES, KVSTORE_RATE_LIMITER_CLUSTER_NODES). */
export { clusterNodes } from './settings';
