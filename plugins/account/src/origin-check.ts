import type { NeutralRequest } from '@crudsmith/core';

/**
 * Login CSRF: a page of another site must not sign the browser into the attacker's
 * account (the session cookie would be set by the answer, whatever the page can read).
 * Built once from `trustedOrigins` and whether the app runs behind HTTPS; answers
 * whether a cookie-setting sign-in is cross-site and must be refused.
 *
 * - `Sec-Fetch-Site` (a header pages cannot set) decides when the browser sends it:
 *   `cross-site` is refused unless `Origin` is trusted.
 * - Without it, `Origin` decides, and `Referer` when there is no `Origin` (browsers
 *   that predate `Sec-Fetch-*` send one or the other on a form post): allowed when it is
 *   a trusted origin, or has the request's own host (and HTTPS when `secure`). An
 *   opaque origin (`null`: a sandboxed frame, a `data:` page) or an unreadable one is
 *   refused.
 * - With none of the three, the caller is no browser page (curl, a server): allowed.
 */
export function crossSiteCheck(trustedOrigins: readonly string[], secure: boolean): (req: NeutralRequest) => boolean {
  const trusted = new Set(trustedOrigins.map(originOf).filter((o): o is string => o !== null));
  return (req) => {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    // Browsers send Origin serialised (scheme://host[:port], nothing more): anything else is no origin of theirs.
    if (site !== undefined) return site === 'cross-site' && !trusted.has(origin ?? '');
    const claimed =
      origin ?? (req.headers.referer !== undefined ? (originOf(req.headers.referer) ?? 'null') : undefined);
    if (claimed === undefined) return false;
    const parsed = parseUrl(claimed);
    if (!parsed || parsed.origin === 'null' || parsed.origin !== claimed) return true;
    if (trusted.has(parsed.origin)) return false;
    const host = req.headers.host?.toLowerCase();
    const ownScheme = secure
      ? parsed.protocol === 'https:'
      : parsed.protocol === 'https:' || parsed.protocol === 'http:';
    return !(host !== undefined && parsed.host === host && ownScheme);
  };
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The origin (scheme, host, port) of a URL or origin, or null when it has none. */
function originOf(text: string): string | null {
  const url = parseUrl(text);
  return url && url.origin !== 'null' ? url.origin : null;
}
