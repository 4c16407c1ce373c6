import { remembered } from './remembered';
import type { Decision, Policy } from './decide';

/**
 * The headers every limited-path response carries: the de facto `X-RateLimit-*` trio
 * (`Reset` in epoch seconds, as GitHub sends it) and the IETF draft's structured fields
 * (draft-ietf-httpapi-ratelimit-headers-09: `RateLimit-Policy: "id";q=..;w=..` and
 * `RateLimit: "id";r=..;t=..`, `t` in seconds from now).
 */
export function rateLimitHeaders(policy: Policy, decision: Decision, nowSeconds: number): Record<string, string> {
  const id = policyId(policy.name);
  return {
    'X-RateLimit-Limit': String(policy.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
    'RateLimit-Policy': `${id};q=${policy.limit};w=${policy.period}`,
    'RateLimit': `${id};r=${decision.remaining};t=${Math.max(0, decision.reset - Math.floor(nowSeconds))}`,
  };
}

// Policy names are few (the default and the stored limits'): each is quoted once.
const policyId = (name: string | undefined) => quotedId(name ?? 'default');
const quotedId = remembered((name) => quoted(name));

// A structured-field string (RFC 8941 §3.3.3): printable ASCII, `"` and `\` escaped.
function quoted(name: string | undefined): string {
  const printable = (name ?? 'default').replace(/[^\x20-\x7e]/g, '');
  return `"${(printable || 'default').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
