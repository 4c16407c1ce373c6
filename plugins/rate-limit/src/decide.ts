/** A limit: at most `limit` requests per fixed window of `period` seconds. */
export interface Policy {
  limit: number;
  period: number;
  /** Names the policy in the `RateLimit-Policy` header (`default` for the default limit). */
  name?: string;
}

/** What one counted request may do, and what its response tells the client. */
export interface Decision {
  allowed: boolean;
  /** Requests left in this window (never negative). */
  remaining: number;
  /** When the window ends, in epoch seconds. */
  reset: number;
  /** Seconds until a request may pass again; 0 when allowed. */
  retryAfter: number;
}

/** The start of the fixed window holding `nowSeconds`: now − now mod period. */
export function windowStart(nowSeconds: number, period: number): number {
  const now = Math.floor(nowSeconds);
  return now - (now % period);
}

/**
 * Decides a request from the window's count after its own increment: limited when the
 * count exceeds the limit. Pure: the clock is an argument.
 */
export function decide(count: number, policy: Pick<Policy, 'limit' | 'period'>, nowSeconds: number): Decision {
  const now = Math.floor(nowSeconds);
  const reset = windowStart(now, policy.period) + policy.period;
  const allowed = count <= policy.limit;
  return {
    allowed,
    remaining: Math.max(0, policy.limit - count),
    reset,
    // now < reset always holds, so a limited client waits at least one second.
    retryAfter: allowed ? 0 : reset - now,
  };
}
