import { sanitizePath, type MatchedPath } from './keys';

// One matching rule for the plugin's `paths` and for a tier's limits: a path covers
// itself and every path beneath it, segment by segment (`/api/orders` covers
// `/api/orders/1`, never `/api/ordersx`); among a tier's limits the most specific wins.

/**
 * The stored (sanitized) limit paths that cover a request, most specific first: each
 * segment prefix of the counted path, each followed by the same prefix of the route
 * pattern (`api_orders_1`, `api_orders_:id`, `api_orders`, `api`).
 */
export function limitPaths(matched: MatchedPath): string[] {
  const concrete = matched.path.split('/');
  const pattern = matched.pattern.split('/');
  const sameShape = pattern.length === concrete.length;
  const found: string[] = [];
  for (let depth = concrete.length; depth > 1; depth--) {
    const path = sanitizePath(concrete.slice(0, depth).join('/'));
    found.push(path);
    if (!sameShape) continue;
    const declared = sanitizePath(pattern.slice(0, depth).join('/'));
    if (declared !== path) found.push(declared);
  }
  return found;
}

/**
 * The stored limit paths that no limited route can ever be counted under, for a warning
 * at startup. A stored path is a full request path, and the adapter's `prefix` is not part
 * of the routes bootstrap sees, so any leading segments are taken as that prefix; a
 * parameter segment matches any value, or its own `:name`.
 */
export function unreachableLimitPaths(stored: readonly string[], routePaths: readonly string[]): string[] {
  const routes = routePaths.map((path) => path.split('/').filter((segment) => segment !== ''));
  return stored.filter((path) => path !== '' && !routes.some((segments) => coveredFrom(path, segments)));
}

function coveredFrom(path: string, segments: string[]): boolean {
  for (let start = 0; start < path.length; start = path.indexOf('_', start) + 1) {
    if (consumes(path, start, segments, 0)) return true;
    if (path.indexOf('_', start) < 0) break;
  }
  return false;
}

// Whether path[from..] is exactly the first k >= 1 route segments joined by `_`.
function consumes(path: string, from: number, segments: string[], index: number): boolean {
  if (index >= segments.length) return false;
  const segment = segments[index];
  for (const end of segmentEnds(path, from, segment)) {
    if (end === path.length || consumes(path, end + 1, segments, index + 1)) return true;
  }
  return false;
}

function segmentEnds(path: string, from: number, segment: string): number[] {
  const boundary = (at: number) => at === path.length || path.charCodeAt(at) === 95;
  if (!segment.startsWith(':'))
    return path.startsWith(segment, from) && boundary(from + segment.length) ? [from + segment.length] : [];
  const ends: number[] = [];
  for (let at = from + 1; at <= path.length; at++) if (boundary(at)) ends.push(at);
  return ends;
}
