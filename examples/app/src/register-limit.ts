import { RateLimitError, ServiceUnavailableError, type Dependency } from '@crudsmith/core';
import { decide, rateLimitKey, windowStart, type RateLimitStore } from '@crudsmith/rate-limit';

/** How many accounts one client address may create in a window. */
export interface RegisterLimit {
  limit: number;
  periodSeconds: number;
}

/**
 * A per-client-address limit on account creation for routes outside the account plugin
 * (`POST /api/v1/users/`), at the limit `/auth/register` has (REGISTER_RATE_LIMIT an
 * hour). It counts in the rate limiter's store, so with Redis every process shares the
 * count, and always by address: a principal does not widen it. A store that cannot count
 * answers 503 rather than let account creation run unlimited.
 */
export function registerLimiter(
  store: RateLimitStore,
  limit: RegisterLimit,
  now: () => number = Date.now,
): Dependency<void> {
  const policy = { limit: limit.limit, period: limit.periodSeconds };
  return async function registerLimit(req) {
    const nowSeconds = Math.floor(now() / 1000);
    const key = rateLimitKey(`register:${req.clientAddress}`, 'users_create', windowStart(nowSeconds, policy.period));
    let count: number;
    try {
      count = await store.hit(key, policy.period, policy.limit);
    } catch (error) {
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds ?? 1;
      throw new ServiceUnavailableError('Account creation is unavailable; try again shortly', {
        cause: error,
        retryAfter,
      });
    }
    const decision = decide(count, policy, nowSeconds);
    if (!decision.allowed)
      throw new RateLimitError('Too many registrations from this address; try again later', {
        retryAfter: decision.retryAfter,
      });
  };
}
