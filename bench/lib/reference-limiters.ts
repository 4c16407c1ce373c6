import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { NeutralResult, Plugin } from '@crudsmith/core';
import { rateLimitHeaders, sanitizePath } from '@crudsmith/rate-limit';

// What the rate-limit suite holds crudsmith's limiter against: rate-limiter-flexible doing
// the same job, and one bare Redis PING per request, the least any Redis limiter costs.

/** The limit and window every limiter of the suite counts with: never reached. */
export const BENCH_LIMIT = 1_000_000_000;
export const BENCH_PERIOD = 3600;

/**
 * rate-limiter-flexible as a plugin doing what rateLimit() does for an anonymous caller:
 * count (client address, path) in a fixed window in Redis, 429 past the limit, and the
 * same rate-limit headers on the answer.
 */
export function flexiblePlugin(client: Redis, prefix: string): Plugin {
  const limiter = new RateLimiterRedis({
    storeClient: client,
    points: BENCH_LIMIT,
    duration: BENCH_PERIOD,
    keyPrefix: prefix,
  });
  const policy = { limit: BENCH_LIMIT, period: BENCH_PERIOD, name: 'default' };
  const STATE = 'bench.flexible';
  const headersOf = (res: RateLimiterRes, consumed: number) => {
    const now = Math.floor(Date.now() / 1000);
    const reset = now + Math.ceil(res.msBeforeNext / 1000);
    return rateLimitHeaders(
      policy,
      { allowed: consumed <= BENCH_LIMIT, remaining: res.remainingPoints, reset, retryAfter: reset - now },
      now,
    );
  };
  return {
    name: 'rate-limiter-flexible',
    hooks: {
      async before(req): Promise<NeutralResult | void> {
        const key = `${req.clientAddress}:${sanitizePath(req.path)}`;
        try {
          const res = await limiter.consume(key);
          req.state[STATE] = headersOf(res, res.consumedPoints);
        } catch (rejected) {
          if (!(rejected instanceof RateLimiterRes)) throw rejected;
          const headers = headersOf(rejected, rejected.consumedPoints);
          return {
            status: 429,
            headers: { ...headers, 'Retry-After': String(Math.ceil(rejected.msBeforeNext / 1000)) },
            json: { detail: 'Rate limit exceeded' },
          };
        }
      },
      after(req, _route, result) {
        const headers = req.state[STATE] as Record<string, string> | undefined;
        return headers ? { ...result, headers: { ...result.headers, ...headers } } : undefined;
      },
    },
  };
}

/**
 * One PING before each request and nothing else: a limiter counting in Redis waits at
 * least this round trip, so no such limiter can beat the ratio this plugin gets.
 */
export function pingPlugin(client: Redis): Plugin {
  return {
    name: 'one-ping',
    hooks: {
      async before() {
        await client.ping();
      },
    },
  };
}
