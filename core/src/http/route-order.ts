import { ConfigurationError } from '../errors/http-error';
import type { RouteDescriptor } from './route';

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/**
 * Orders routes so that, segment by segment, a literal comes before a parameter
 * (`/users/me` before `/users/:id`). Every adapter then picks the same route for a path,
 * whatever its router's own rule. The sort is stable otherwise.
 */
export function orderBySpecificity(routes: readonly RouteDescriptor[]): RouteDescriptor[] {
  const rank = (a: RouteDescriptor, b: RouteDescriptor): number => {
    const sa = segments(a.path);
    const sb = segments(b.path);
    for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
      const pa = sa[i].startsWith(':');
      const pb = sb[i].startsWith(':');
      if (pa !== pb) return pa ? 1 : -1;
      if (!pa && sa[i] !== sb[i]) return 0;
    }
    return 0;
  };
  return [...routes].sort(rank);
}

/** Throws when two routes answer the same method and path shape (parameter names aside). */
export function assertNoRouteClash(routes: readonly RouteDescriptor[]): void {
  const seen = new Map<string, string>();
  for (const route of routes) {
    const shape = `${route.method} /${segments(route.path).map((s) => (s.startsWith(':') ? ':' : s)).join('/')}${route.path.endsWith('/') && route.path !== '/' ? '/' : ''}`;
    const other = seen.get(shape);
    if (other) throw new ConfigurationError(`Route clash: ${route.operation} and ${other} both answer ${shape}`);
    seen.set(shape, route.operation);
  }
}
