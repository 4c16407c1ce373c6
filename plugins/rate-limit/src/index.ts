// @crudsmith/rate-limit: tiers, per-path limits and a fixed-window counter (spec Limits 3).

/** The pure decision, keys and headers. */
export { decide, windowStart } from './decide';
export type { Decision, Policy } from './decide';
export { sanitizePath, rateLimitKey, matchedPath } from './keys';
export type { MatchedPath } from './keys';
export { rateLimitHeaders } from './headers';
