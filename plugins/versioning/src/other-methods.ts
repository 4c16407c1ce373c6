import type { HttpMethod, RouteDescriptor } from '@crudsmith/core';
import { allowedMethods, otherMethodResult } from '@crudsmith/core/adapter';

// No HEAD: every adapter answers it with the path's GET route, ours (a 405) or the version's.
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Routes for the methods a deprecated version's paths do not answer: 405 with `Allow`
 * (OPTIONS: 200 with `Allow`), as the adapters answer them, but as routes, so the
 * deprecation headers reach these answers too.
 */
export function otherMethodRoutes(label: string, routes: readonly RouteDescriptor[]): RouteDescriptor[] {
  return [...allowedMethods(routes)].flatMap(([path, methods]) =>
    METHODS.filter((method) => !methods.includes(method)).map((method): RouteDescriptor => ({
      method,
      path,
      operation: `${label}_${method.toLowerCase()}_not_allowed${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      dependencies: [],
      handler: async () => otherMethodResult(method, methods),
    })),
  );
}
