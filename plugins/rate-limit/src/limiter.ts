import {
  principalOf,
  RateLimitError,
  ServiceUnavailableError,
  type Dependency,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import { decide, windowStart, type Decision, type Policy } from './decide';
import { rateLimitHeaders } from './headers';
import { matchedPath, rateLimitKey, sanitizePath, type MatchedPath } from './keys';
import type { RateLimitLogger } from './logger';
import { limitPaths } from './tier-paths';
import { StoreFullError, type RateLimitStore } from './stores/store';
import type { TierCache } from './tiers/tier-cache';

/** What the limiter decided for a request, kept in `req.state` for the response headers. */
export interface RateLimitState {
  userId: string;
  /** The sanitized path the request was counted under. */
  path: string;
  policy: Policy;
  decision: Decision;
  nowSeconds: number;
}

/** What the limiter needs: where to count, where limits come from, and how to fail. */
export interface LimiterContext {
  store: RateLimitStore;
  cache: TierCache;
  failOpen: boolean;
  logger: RateLimitLogger;
  /** The clock, in ms. */
  now: () => number;
}

const MATCHED = 'crudsmith.rateLimit.matched';
const STATE = 'crudsmith.rateLimit';
// At most one "store down" log line a minute, however many requests fail meanwhile.
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * Remembers the path the matched route gives this request, for the limiter (the plugin's
 * before hook does this on every route), and answers it: worked out once per request.
 */
export function rememberRoute(req: NeutralRequest, route: RouteDescriptor): MatchedPath {
  const matched = matchedPath(req, route);
  req.state[MATCHED] = matched;
  return matched;
}

/** The limiter's decision for this request, when it ran and the store answered. */
export function rateLimitStateOf(req: NeutralRequest): RateLimitState | undefined {
  return req.state[STATE] as RateLimitState | undefined;
}

/**
 * The limiter as a core dependency: identifies the caller (principal `rateLimitKey`, else
 * its id, or client address when anonymous), finds the tier's most specific limit covering the
 * path in the cache,
 * counts the request in the store (its one round trip), and throws a 429 with
 * `Retry-After` when the count exceeds the limit. Resolved once per request, so a route
 * guarded both by prefix and by `readDeps` counts once.
 */
export function createLimiter(ctx: LimiterContext): Dependency<RateLimitState | null> {
  const outage = { since: 0, lastLogged: 0, failures: 0, fullLogged: 0 };

  return async function rateLimiter(req) {
    const { path, pattern } = (req.state[MATCHED] as MatchedPath | undefined) ?? matchedPath(req);
    const sanitized = sanitizePath(path);
    const principal = await principalOf(req);
    // A caller with its own budget (an API key) is counted apart from its owner's other credentials.
    const userId = principal ? (principal.rateLimitKey ?? String(principal.id)) : req.clientAddress;
    const tierId = principal?.tierId;
    const policy =
      tierId === null || tierId === undefined
        ? ctx.cache.defaultPolicy
        : await policyFor(ctx, tierId, limitPaths({ path, pattern }));
    const nowSeconds = Math.floor(ctx.now() / 1000);
    const key = rateLimitKey(userId, sanitized, windowStart(nowSeconds, policy.period));

    let count: number;
    try {
      count = await ctx.store.hit(key, policy.period, policy.limit);
    } catch (error) {
      // Full of spent windows: failing open would serve the flood unlimited.
      if (error instanceof StoreFullError) {
        reportFull(ctx, outage);
        throw new ServiceUnavailableError('Too many clients are being rate limited; try again later', {
          retryAfter: error.retryAfterSeconds,
        });
      }
      reportOutage(ctx, outage, error);
      if (ctx.failOpen) return null;
      throw new ServiceUnavailableError('Rate limiting is unavailable; try again shortly', {
        cause: error,
        retryAfter: 1,
      });
    }
    if (outage.since) {
      ctx.logger.info?.('Rate-limit store answers again', {
        failedRequests: outage.failures,
        downForMs: ctx.now() - outage.since,
      });
      outage.since = outage.failures = 0;
    }

    const decision = decide(count, policy, nowSeconds);
    const state: RateLimitState = { userId, path: sanitized, policy, decision, nowSeconds };
    req.state[STATE] = state;
    if (!decision.allowed) {
      // Every violation is logged, with who, where from and with what.
      ctx.logger.warn('Rate limit exceeded', {
        userId,
        path: req.path,
        clientAddress: req.clientAddress,
        userAgent: req.headers['user-agent'] ?? null,
        limit: policy.limit,
        period: policy.period,
      });
      throw new RateLimitError('Rate limit exceeded', {
        retryAfter: decision.retryAfter,
        headers: rateLimitHeaders(policy, decision, nowSeconds),
      });
    }
    return state;
  };
}

// The database being away must not fail requests the store could still count: the
// default limit applies until the limits can be read again.
async function policyFor(ctx: LimiterContext, tierId: number, paths: string[]): Promise<Policy> {
  try {
    return await ctx.cache.lookup(tierId, paths);
  } catch (error) {
    ctx.logger.error('Could not read rate limits; applying the default limit', { error: String(error) });
    return ctx.cache.defaultPolicy;
  }
}

function reportFull(ctx: LimiterContext, outage: { fullLogged: number }): void {
  const now = ctx.now();
  if (outage.fullLogged && now - outage.fullLogged < OUTAGE_LOG_INTERVAL_MS) return;
  outage.fullLogged = now;
  ctx.logger.error('Rate-limit store is full of spent windows; answering 503 to new callers', {});
}

function reportOutage(
  ctx: LimiterContext,
  outage: { since: number; lastLogged: number; failures: number },
  error: unknown,
): void {
  const now = ctx.now();
  outage.failures++;
  if (!outage.since) outage.since = now;
  if (outage.failures > 1 && now - outage.lastLogged < OUTAGE_LOG_INTERVAL_MS) return;
  outage.lastLogged = now;
  ctx.logger.error(
    ctx.failOpen
      ? 'Rate-limit store unavailable; serving requests unlimited'
      : 'Rate-limit store unavailable; answering 503',
    {
      error: String(error),
      failedRequests: outage.failures,
    },
  );
}
