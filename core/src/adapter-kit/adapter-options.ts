import { ConfigurationError } from '../errors/configuration-error';
import { NotFoundError } from '../errors/http-error';
import { createAddressResolver, type AddressResolver } from '../http/client-address';
import type { ErrorLogger } from '../http/render-error';
import type { RouteDescriptor } from '../http/route';
import { DEFAULT_MAX_BODY_VALUES } from './wire/read-body';
import type { Fallback } from '../plugin/plugin';
import { fallbackFor } from './fallback';

/** The options every adapter's `mountRoutes` takes. */
export interface AdapterOptions {
  /** Path prepended to every route, such as `/api/v1`. */
  prefix?: string;
  /** Largest accepted request body in bytes (JSON, form or multipart); larger is 413. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Most values (keys and array items, at any depth; a form's fields and repeated values)
   * a request body may hold; more is 413. It bounds the work of validating one body.
   * Default 10,000.
   */
  maxBodyValues?: number;
  /** Proxy addresses or CIDR ranges whose `X-Forwarded-For` is believed. Default: none. */
  trustedProxies?: readonly string[];
  /**
   * Where unexpected errors are reported (a body that could not be read, an answer that
   * could not be written), with the request's id: `requestLog(...).errors` puts them on
   * the request's log line. Default: console.
   */
  logger?: ErrorLogger;
  /** Answers unmatched paths under their prefixes, after those of a bootstrapped app passed as the routes. */
  fallbacks?: readonly Fallback[];
  /**
   * Answer every path under `prefix` that no route or fallback answers with the JSON 404
   * `{"detail":"Not Found"}`, instead of passing it on to the app's own handlers. Default false.
   */
  jsonNotFound?: boolean;
}

/** The options, checked and filled in once, when the routes are mounted. */
export interface AdapterSettings {
  prefix: string;
  bodyLimit: number;
  maxBodyValues: number;
  clientAddress: AddressResolver;
  logger: ErrorLogger;
  /** The given fallbacks, and the JSON 404 covering everything when `jsonNotFound` is set. */
  fallbacks: readonly Fallback[];
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The JSON 404 every unmatched path gets with `jsonNotFound` (a fallback under the empty prefix covers every path). */
const notFound: Fallback = {
  prefix: '',
  handler: async () => {
    throw new NotFoundError('Not Found');
  },
};

/** Checks an adapter's options and fills in the defaults; a bad value fails at startup. */
export function adapterSettings(options: AdapterOptions): AdapterSettings {
  const fallbacks = options.fallbacks ?? [];
  return {
    prefix: options.prefix ?? '',
    bodyLimit: checkedLimit(options.bodyLimit ?? DEFAULT_BODY_LIMIT),
    maxBodyValues: checkedCount(options.maxBodyValues ?? DEFAULT_MAX_BODY_VALUES),
    clientAddress: createAddressResolver(options.trustedProxies ?? []),
    logger: options.logger ?? console,
    fallbacks: options.jsonNotFound ? [...fallbacks, notFound] : fallbacks,
  };
}

/** The body limit of one route: its own when it sets one, else the adapter's. */
export function bodyLimitOf(route: RouteDescriptor, settings: AdapterSettings): number {
  return route.bodyLimit === undefined ? settings.bodyLimit : checkedLimit(route.bodyLimit);
}

/** The fallback answering a full request path (prefix included), if any covers it. */
export function fallbackAt(settings: AdapterSettings, path: string): Fallback | undefined {
  if (settings.fallbacks.length === 0 || !path.startsWith(settings.prefix)) return undefined;
  return fallbackFor(settings.fallbacks, path.slice(settings.prefix.length));
}

function checkedCount(values: number): number {
  if (!Number.isSafeInteger(values) || values < 1)
    throw new ConfigurationError(`maxBodyValues must be a positive whole number, got ${values}`);
  return values;
}

function checkedLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new ConfigurationError(`bodyLimit must be a number of bytes, got ${bytes}`);
  return bytes;
}
