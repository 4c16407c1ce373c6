import type { Decision, Policy } from './decide';

/**
 * The headers every limited-path response carries: the de facto `X-RateLimit-*` trio
 * (`Reset` in epoch seconds, as GitHub sends it) and the IETF draft's structured fields
 * (draft-ietf-httpapi-ratelimit-headers-09: `RateLimit-Policy: "id";q=..;w=..` and
 * `RateLimit: "id";r=..;t=..`, `t` in seconds from now).
 */
export function rateLimitHeaders(policy: Policy, decision: Decision, nowSeconds: number): Record<string, string> {
  const fixed = fixedPart(policy);
  return {
    'X-RateLimit-Limit': fixed.limit,
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
    'RateLimit-Policy': fixed.policy,
    RateLimit: `${fixed.id};r=${decision.remaining};t=${Math.max(0, decision.reset - Math.floor(nowSeconds))}`,
  };
}

interface FixedPart {
  limit: string;
  policy: string;
  id: string;
  /** The policy as it was written from (a caller may change its own object). */
  of: Policy;
}

// What a policy's headers always say, written once per policy object (the default and the
// cached limits are the same objects request after request).
const fixedParts = new WeakMap<Policy, FixedPart>();

function fixedPart(policy: Policy): FixedPart {
  let fixed = fixedParts.get(policy);
  if (!fixed || fixed.of.limit !== policy.limit || fixed.of.period !== policy.period || fixed.of.name !== policy.name) {
    const id = quoted(policy.name);
    fixed = {
      limit: String(policy.limit),
      policy: `${id};q=${policy.limit};w=${policy.period}`,
      id,
      of: { ...policy },
    };
    fixedParts.set(policy, fixed);
  }
  return fixed;
}

// A structured-field string (RFC 8941 §3.3.3): printable ASCII, `"` and `\` escaped.
function quoted(name: string | undefined): string {
  const printable = (name ?? 'default').replace(/[^\x20-\x7e]/g, '');
  return `"${(printable || 'default').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
