import { remembered } from './remembered';
import type { NeutralRequest, RouteDescriptor } from '@crudsmith/core';

const SLASH = 47;

/** Strips leading and trailing `/`, then replaces each `/` with `_`. */
export function sanitizePath(path: string): string {
  // Every request takes this path: the usual spelling (one leading slash, none trailing)
  // without regular expressions.
  if (path.charCodeAt(0) === SLASH && path.charCodeAt(1) !== SLASH && path.charCodeAt(path.length - 1) !== SLASH)
    return path.slice(1).replaceAll('/', '_');
  return path.replace(/^\/+|\/+$/g, '').replace(/\//g, '_');
}

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
 * trailing slash, the query or any other spelling never opens a fresh bucket. A value
 * spelled as an integer (`01`, `+1`, `-0`) is put in as its canonical decimal, since the
 * generated routes (and most apps) read all of them as the same id; a value of a
 * parameter the route documents as an integer that is not spelled as one can name no
 * row, and is counted under the parameter's name (`:id`), one bucket for all of them.
 * When an adapter mounted the routes under a prefix, the request path carries that
 * prefix and the descriptor does not: it is taken back from the request path.
 */
export function matchedPath(
  req: Pick<NeutralRequest, 'path' | 'params'>,
  route?: Pick<RouteDescriptor, 'path' | 'doc'>,
): MatchedPath {
  const requested = trimSlashes(req.path);
  if (!route) return { path: requested, pattern: requested };
  const { pattern, segments } = patternOf(route.path);
  // A root route mounted under a prefix: only the request knows the prefix.
  if (pattern === '/') return { path: requested, pattern: requested };
  if (segments === undefined) return withPrefix(requested, pattern, pattern, pattern);
  const integers = integerParams(route);
  let spelled = '';
  let canonical = '';
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const sep = i === 0 ? '' : '/';
    if (!segment.startsWith(':')) {
      spelled += sep + segment;
      canonical += sep + segment;
      continue;
    }
    const value = req.params[segment.slice(1)];
    spelled += sep + (value ?? segment);
    canonical += sep + (value === undefined ? segment : canonicalValue(value, segment, integers.has(segment.slice(1))));
  }
  return withPrefix(requested, spelled, canonical, pattern);
}

// The prefix is what the request path has before the route's path as spelled; the
// canonical path then goes after it.
function withPrefix(requested: string, spelled: string, canonical: string, pattern: string): MatchedPath {
  const prefix =
    requested.length > spelled.length && requested.endsWith(spelled)
      ? requested.slice(0, requested.length - spelled.length)
      : '';
  return { path: trimSlashes(prefix + canonical), pattern: trimSlashes(prefix + pattern) };
}

const INTEGER_SPELLING = /^[+-]?\d+$/;
const ZERO = 48;

/**
 * The key spelling of one parameter value: an integer's canonical decimal (sign and
 * leading zeros dropped, `-0` is `0`), found by one scan of the text, no number parsing,
 * so any length costs linear time; a non-integer value of an integer parameter is the
 * parameter's name; anything else as given.
 */
export function canonicalValue(value: string, segment: string, integer: boolean): string {
  if (!INTEGER_SPELLING.test(value)) return integer ? segment : value;
  const negative = value.charCodeAt(0) === 45;
  let start = value.charCodeAt(0) === 43 || negative ? 1 : 0;
  while (start < value.length - 1 && value.charCodeAt(start) === ZERO) start++;
  const digits = value.slice(start);
  return negative && digits !== '0' ? `-${digits}` : digits;
}

// The names of a route's path parameters that its OpenAPI doc types as integers (the
// generated routes' `:id` on an integer key), worked out once per route.
const integerParamsOf = new WeakMap<object, Set<string>>();
function integerParams(route: Pick<RouteDescriptor, 'doc'>): Set<string> {
  let names = integerParamsOf.get(route);
  if (!names) {
    names = new Set();
    for (const parameter of route.doc?.parameters ?? []) {
      const type = (parameter.schema as { type?: unknown } | undefined)?.type;
      const integer = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
      if (parameter.in === 'path' && integer && typeof parameter.name === 'string') names.add(parameter.name);
    }
    integerParamsOf.set(route, names);
  }
  return names;
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
