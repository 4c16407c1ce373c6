import type { NeutralRequest, NeutralResult } from '@crudsmith/core';

// No inline script or style anywhere: scripts and the stylesheet come from the admin's own
// static route, so the policy can refuse everything else. htmx is configured by a meta tag.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every admin page carries; `authenticated` pages are never stored by a cache. */
export function pageHeaders(authenticated: boolean): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CSP,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': authenticated ? 'no-store' : 'no-cache',
  };
}

/** An HTML answer with the page headers. */
export function html(
  status: number,
  body: string,
  options: { authenticated?: boolean; headers?: Record<string, string>; cookies?: NeutralResult['cookies'] } = {},
): NeutralResult {
  return {
    status,
    headers: { ...pageHeaders(options.authenticated ?? true), ...options.headers },
    body,
    cookies: options.cookies,
  };
}

/** Whether the request came from htmx (it then gets partials and `HX-Redirect`). */
export function isHtmx(req: NeutralRequest): boolean {
  return req.headers['hx-request'] === 'true';
}

/** Whether the client asked for JSON rather than a page (fetch with `Accept: application/json`, or a JSON body). */
export function wantsJson(req: NeutralRequest): boolean {
  const accept = req.headers.accept ?? '';
  return (
    (accept.includes('application/json') && !accept.includes('text/html')) ||
    (req.headers['content-type'] ?? '').includes('application/json')
  );
}

/** A redirect after a form post (303), or `HX-Redirect` for htmx, which follows it itself. */
export function seeOther(req: NeutralRequest, location: string, cookies?: NeutralResult['cookies']): NeutralResult {
  if (isHtmx(req))
    return { status: 200, headers: { 'HX-Redirect': location, 'Cache-Control': 'no-store' }, body: '', cookies };
  return { status: 303, redirect: location, headers: { 'Cache-Control': 'no-store' }, cookies };
}
