import type { Knex } from 'knex';
import {
  ConfigurationError,
  type Dependency,
  type NeutralResult,
  type Plugin,
  type RouteDescriptor,
} from '@crudsmith/core';
import { rateLimitHeaders } from './headers';
import { underPrefix } from './keys';
import { unreachableLimitPaths } from './tier-paths';
import { createLimiter, rateLimitStateOf, rememberRoute, type RateLimitState } from './limiter';
import type { RateLimitLogger } from './logger';
import { MemoryStore } from './stores/memory-store';
import { RedisStore } from './stores/redis-store';
import type { RateLimitStore } from './stores/store';
import { RedisInvalidation } from './tiers/invalidation';
import { rateLimitMigrations } from './tiers/migrations';
import { TierCache } from './tiers/tier-cache';
import { loadRateLimits, TierService } from './tiers/tier-service';

/** Options of `rateLimit`. */
export interface RateLimitOptions {
  /** The database holding `tiers` and `rate_limits`. */
  knex: Knex;
  /**
   * Where counters live: `'memory'` (default, one process) or a store, such as a `RedisStore`
   * from `@crudsmith/rate-limit/redis` (every process). The plugin closes only a store it made.
   */
  store?: 'memory' | RateLimitStore;
  /** Requests per window for anonymous callers, users without a tier, and paths a tier does not list. Default 100. */
  defaultLimit?: number;
  /** Window length in seconds for the same. Default 3600. */
  defaultPeriod?: number;
  /** Serve requests when the store is down (logged), instead of answering 503. Default true. */
  failOpen?: boolean;
  /** Route paths the plugin guards, each with every route beneath it (`['/api/v1/items']` guards `/api/v1/items/:id`), as bootstrap sees the paths: an adapter's `prefix` is not part of them. A tier's limit on a path covers the paths beneath it the same way. Default none. */
  paths?: string[];
  logger?: RateLimitLogger;
  /** The clock, in ms (tests inject one). Default `Date.now`. */
  now?: () => number;
  /** Redis channel carrying limit changes between processes, when `store` is a RedisStore. Default `crudsmith:rate-limit:invalidate`. */
  channel?: string;
  /** Longest a process keeps limits it was not told changed, in ms. Default 60 000. */
  cacheMaxAgeMs?: number;
}

/**
 * The rate-limit plugin, for `bootstrap({ plugins })` (its migrations, the guard on
 * `paths`, headers on every limited response), with what the app's own routes use.
 */
export interface RateLimitPlugin extends Plugin {
  /** The limiter as a dependency, for single routes or routers (`readDeps: [limits.limiter]`). */
  limiter: Dependency<RateLimitState | null>;
  /** Tiers and their limits, for the app's routes. */
  tiers: TierService;
  cache: TierCache;
  store: RateLimitStore;
}

/**
 * Tier-based, per-path, fixed-window rate limiting as a plugin: pass it to bootstrap, and
 * either list `paths` or put `limiter` on the routes to guard. Its tables (`tiers`,
 * `rate_limits`) run before the app's own migrations, so the app's users may reference tiers.
 *
 * @example
 * const limits = rateLimit({ knex, store: settings.redis ? new RedisStore(createRedisClient(settings.redis)) : 'memory', paths: ['/api/v1/items'] });
 * const app = bootstrap({ routers, plugins: [limits], principal, migrations: [appMigrations] });
 */
export function rateLimit(options: RateLimitOptions): RateLimitPlugin {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? console;
  const defaultPolicy = { limit: options.defaultLimit ?? 100, period: options.defaultPeriod ?? 3600 };
  if (!Number.isSafeInteger(defaultPolicy.limit) || defaultPolicy.limit < 0)
    throw new ConfigurationError(`defaultLimit must be a non-negative integer, got ${defaultPolicy.limit}`);
  if (!Number.isSafeInteger(defaultPolicy.period) || defaultPolicy.period < 1)
    throw new ConfigurationError(`defaultPeriod must be a positive integer, got ${defaultPolicy.period}`);

  const { store, ownStore } = storeOf(options, now);
  const cache = new TierCache({
    load: () => loadRateLimits(options.knex),
    defaultPolicy,
    maxAgeMs: options.cacheMaxAgeMs,
    now,
  });
  // Counting in Redis: limit changes reach every process over pub/sub on the store's client.
  const bus =
    store instanceof RedisStore
      ? new RedisInvalidation({
          publisher: store.client,
          channel: options.channel,
          onInvalidate: () => cache.invalidate(),
          logger,
        })
      : undefined;
  const tiers = new TierService(options.knex, async () => {
    cache.invalidate();
    await bus?.publish();
  });
  const limiter = createLimiter({ store, cache, failOpen: options.failOpen ?? true, logger, now });
  const paths = options.paths ?? [];
  const guarded = (route: RouteDescriptor) => paths.length > 0 && underPrefix(route.path, paths);
  // The paths of the routes the limiter counts, as bootstrap hands them over, for the startup check of stored limits.
  const limitedRoutes = new Set<string>();

  return {
    name: 'rate-limit',
    migrations: rateLimitMigrations,
    hooks: {
      // Decided once per route at bootstrap: the routes under `paths`, and those that list
      // the limiter themselves (they need the matched route pattern for their key).
      appliesTo(route) {
        const limited = guarded(route) || route.dependencies.includes(limiter);
        if (limited) limitedRoutes.add(route.path);
        return limited;
      },
      before(req, route) {
        rememberRoute(req, route);
        if (guarded(route)) return req.resolve(limiter).then(nothing);
      },
      after(req, _route, result): NeutralResult | void {
        const state = rateLimitStateOf(req);
        if (!state) return;
        return {
          ...result,
          headers: { ...result.headers, ...rateLimitHeaders(state.policy, state.decision, state.nowSeconds) },
        };
      },
    },
    async init() {
      // Both wait at most a second for Redis; a Redis that is down must not hold the app's start.
      await Promise.all([
        store instanceof RedisStore ? whenReady(store.client, 1000, logger) : undefined,
        bus?.start(),
      ]);
      await cache.warm();
      for (const path of unreachableLimitPaths(await cache.paths(), [...limitedRoutes])) {
        logger.warn(
          'A stored rate limit covers no limited route; check its path (a full request path, adapter prefix included)',
          { path },
        );
      }
    },
    async close() {
      await bus?.close();
      if (ownStore) await store.close?.();
    },
    limiter,
    tiers,
    cache,
    store,
  };
}

const nothing = (): void => undefined;

function storeOf(options: RateLimitOptions, now: () => number): { store: RateLimitStore; ownStore: boolean } {
  const given = options.store ?? 'memory';
  if (given === 'memory') return { store: new MemoryStore({ now }), ownStore: true };
  if (typeof (given as Partial<RateLimitStore> | null)?.hit === 'function') return { store: given, ownStore: false };
  throw new ConfigurationError(
    "rateLimit: store must be 'memory' or a RateLimitStore (for Redis: new RedisStore(client) from @crudsmith/rate-limit/redis)",
  );
}

// At startup, wait a little for Redis so the first requests are counted; never block the
// app on it (failOpen decides what requests get meanwhile).
async function whenReady(client: RedisStore['client'], ms: number, logger: RateLimitLogger): Promise<void> {
  if (client.status === 'ready') return;
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), ms);
    const onReady = () => done(true);
    function done(ok: boolean) {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    }
    client.once('ready', onReady);
  });
  if (!ready)
    logger.warn('Rate-limit Redis is not reachable yet; requests are counted once it is', { status: client.status });
}
