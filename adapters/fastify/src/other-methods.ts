import type { RouteDescriptor } from '@crudsmith/core';

/** The methods one path answers, keyed by the path as registered. */
export type AllowedMethods = Map<string, string[]>;

/**
 * Groups routes by path shape (parameter names aside), as a router matches them, and
 * lists each shape's methods in `Allow` order. GET implies HEAD, as every router here
 * answers HEAD with the GET route.
 */
export function allowedMethods(routes: readonly RouteDescriptor[], prefix: string): AllowedMethods {
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
