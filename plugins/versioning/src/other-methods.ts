import { HttpError, type HttpMethod, type RouteDescriptor } from '@crudsmith/core';

// No HEAD: every adapter answers it with the path's GET route, ours (a 405) or the version's.
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Routes for the methods a deprecated version's paths do not answer: 405 with `Allow`
 * (OPTIONS: 200 with `Allow`), as the adapters answer them, but as routes, so the
 * deprecation headers reach these answers too.
 */
export function otherMethodRoutes(label: string, routes: readonly RouteDescriptor[]): RouteDescriptor[] {
  const byShape = new Map<string, { path: string; methods: Set<HttpMethod> }>();
  for (const route of routes) {
    const shape = route.path.replace(/:[^/]+/g, ':');
    const entry = byShape.get(shape) ?? { path: route.path, methods: new Set<HttpMethod>() };
    entry.methods.add(route.method);
    if (route.method === 'GET') entry.methods.add('HEAD');
    byShape.set(shape, entry);
  }
  return [...byShape.values()].flatMap(({ path, methods }) => {
    const allow = [...methods].sort().join(', ');
    return METHODS.filter((method) => !methods.has(method)).map((method): RouteDescriptor => ({
      method,
      path,
      operation: `${label}_${method.toLowerCase()}_not_allowed${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      dependencies: [],
      async handler() {
        if (method === 'OPTIONS') return { status: 200, headers: { Allow: allow }, body: '' };
        throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: allow } });
      },
    }));
  });
}
