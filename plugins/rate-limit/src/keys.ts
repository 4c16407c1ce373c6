import { remembered } from './remembered';
import type { NeutralRequest, RouteDescriptor } from '@crudsmith/core';

const SLASH = 47;

/** Strips leading and trailing `/`, then replaces each `/` with `_`. */
export function sanitizePath(path: string): string {
  // Every request takes this path: the usual spelling (one leading slash, none trailing)
  // without regular expressions.
  if (path.charCodeAt(0) === SLASH && path.charCodeAt(1) !== SLASH && path.charCodeAt(path.length - 1) !== SLASH) return path.slice(1).replaceAll('/', '_');
  return path.replace(/^\/+|\/+$/g, '').replace(/\//g, '_');
}

/** `sanitizePath` of a route pattern, worked out once per pattern (they are few). */
export const sanitizedPattern = remembered(sanitizePath);

/** The counter's key: `ratelimit:{user_id}:{sanitized_path}:{window_start}`. */
export function rateLimitKey(userId: string | number, sanitizedPath: string, windowStart: number): string {
  return `ratelimit:${userId}:${sanitizedPath}:${windowStart}`;
}

/** The path a request is counted under: the matched route, concrete and as a pattern. */
export interface MatchedPath {
  /** The route's full path with the decoded parameter values (`/api/v1/items/5`). */
  path: string;
  /** The route's full path as declared (`/api/v1/items/:id`). */
  pattern: string;
}

/**
 * The matched route's path with the request's parameter values put in, so a
 * trailing slash, the query or any other spelling never opens a fresh bucket. When an
 * adapter mounted the routes under a prefix, the request path carries that prefix and
 * the descriptor does not: it is taken back from the request path.
 */
export function matchedPath(req: Pick<NeutralRequest, 'path' | 'params'>, route?: Pick<RouteDescriptor, 'path'>): MatchedPath {
  const requested = trimSlashes(req.path);
  if (!route) return { path: requested, pattern: requested };
  const { pattern, segments } = patternOf(route.path);
  // A root route mounted under a prefix: only the request knows the prefix.
  if (pattern === '/') return { path: requested, pattern: requested };
  const path = segments === undefined ? pattern : segments
    .map((segment) => (segment.startsWith(':') ? (req.params[segment.slice(1)] ?? segment) : segment))
    .join('/');
  const prefix = requested.length > path.length && requested.endsWith(path) ? requested.slice(0, requested.length - path.length) : '';
  return { path: trimSlashes(prefix + path), pattern: trimSlashes(prefix + pattern) };
}

// A route's path, trimmed and split at its parameters, worked out once per declared path
// (the app's routes: few, and fixed at startup).
const patternOf = remembered((declared) => {
  const pattern = trimSlashes(declared);
  return { pattern, segments: pattern.includes('/:') ? pattern.split('/') : undefined };
});

function trimSlashes(path: string): string {
  if (path.charCodeAt(0) === SLASH && path.charCodeAt(path.length - 1) !== SLASH) return path;
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Whether a path lies under one of the prefixes, on a segment boundary (`/items` guards `/items/:id`, not `/itemsx`). */
export function underPrefix(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((raw) => {
    const prefix = raw.replace(/\/+$/, '');
    return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
  });
}
