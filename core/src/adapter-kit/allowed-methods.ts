import type { NeutralResult } from '../http/neutral';
import type { RouteDescriptor } from '../http/route';

/**
 * The methods each path answers, keyed by the path as registered (`prefix` + the first
 * route's spelling). Routes are grouped by shape, parameter names aside, as a router
 * matches them; GET implies HEAD, which every adapter answers with the GET route. Methods
 * are sorted, in `Allow` order.
 */
export function allowedMethods(routes: readonly RouteDescriptor[], prefix = ''): Map<string, string[]> {
  const byShape = new Map<string, { path: string; methods: Set<string> }>();
  for (const route of routes) {
    const shape = route.path.replace(/:[^/]+/g, ':');
    const entry = byShape.get(shape) ?? { path: prefix + route.path, methods: new Set<string>() };
    entry.methods.add(route.method);
    if (route.method === 'GET') entry.methods.add('HEAD');
    byShape.set(shape, entry);
  }
  return new Map([...byShape.values()].map(({ path, methods }) => [path, [...methods].sort()]));
}

/**
 * The answer to a method a path does not serve: OPTIONS lists the methods (200), any
 * other method is a JSON 405. Both carry `Allow`, as @koa/router's allowedMethods does.
 */
export function otherMethodResult(method: string, allow: readonly string[]): NeutralResult {
  const headers = { Allow: allow.join(', ') };
  return method === 'OPTIONS'
    ? { status: 200, headers, body: '' }
    : { status: 405, headers, json: { detail: 'Method Not Allowed' } };
}
