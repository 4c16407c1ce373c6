import { ConfigurationError } from '../errors/configuration-error';
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
  // A consistent order (lexicographic over "literal 0, parameter 1" per segment): a
  // comparator that answers 0 for unrelated pairs is not transitive, and Array.sort then
  // left `/items/:id` before `/items/count`. Two paths that can match the same URL first
  // differ where one has a literal and the other a parameter, so the literal one wins.
  const kinds = (route: RouteDescriptor) => segments(route.path).map((s) => (s.startsWith(':') ? 1 : 0));
  const rank = (a: number[], b: number[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  };
  return routes
    .map((route) => ({ route, key: kinds(route) }))
    .sort((a, b) => rank(a.key, b.key))
    .map(({ route }) => route);
}

/** Throws when two routes answer the same method and path shape (parameter names aside). */
export function assertNoRouteClash(routes: readonly RouteDescriptor[]): void {
  const seen = new Map<string, string>();
  for (const route of routes) {
    const shape = `${route.method} /${segments(route.path)
      .map((s) => (s.startsWith(':') ? ':' : s))
      .join('/')}${route.path.endsWith('/') && route.path !== '/' ? '/' : ''}`;
    const other = seen.get(shape);
    if (other) throw new ConfigurationError(`Route clash: ${route.operation} and ${other} both answer ${shape}`);
    seen.set(shape, route.operation);
  }
}
