import type { Application, ErrorRequestHandler, Request, RequestHandler, Response, Router as ExpressRouter } from 'express';
// The one runtime import of express: the user's own, resolved as a peer dependency.
import { Router } from 'express';
import {
  BadRequestError, ConfigurationError, createAddressResolver, errorToResult, fallbackFor, runFallback, runRoute,
  type ErrorLogger, type Fallback, type NeutralRequest, type NeutralResult, type RouteDescriptor,
} from '@crudsmith/core';
import { allowedMethods } from './other-methods';
import { toNeutralRequest, type ReadSettings } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`. */
export interface ExpressAdapterOptions {
  /** Path prepended to every route, such as `/api/v1`. */
  prefix?: string;
  /** Largest accepted request body in bytes (JSON, form or multipart); larger is 413. Default 1 MiB. */
  bodyLimit?: number;
  /** Proxy addresses or CIDR ranges whose `X-Forwarded-For` is believed. Default: none. */
  trustedProxies?: readonly string[];
  /** Where unexpected errors are reported. Default: console. */
  logger?: ErrorLogger;
  /** Answers unmatched paths under their prefixes (the app's `fallbacks`). */
  fallbacks?: readonly Fallback[];
}

interface Settings extends ReadSettings {
  logger: ErrorLogger;
}

/**
 * Mounts route descriptors on the user's Express app or router, through a sub-router
 * that matches paths exactly as written (case and trailing slash). Unmatched requests go
 * on to the app's next middleware.
 */
export function mountRoutes(target: Application | ExpressRouter, routes: readonly RouteDescriptor[], options: ExpressAdapterOptions = {}): void {
  const settings: Settings = {
    bodyLimit: checkedLimit(options.bodyLimit ?? 1024 * 1024),
    clientAddress: createAddressResolver(options.trustedProxies ?? []),
    logger: options.logger ?? console,
  };
  const prefix = options.prefix ?? '';
  // One spelling per route (DESIGN §8): another case or slash is a 404, not a fresh rate-limit
  // bucket. The prefix is part of each route rather than a use() mount path, because the
  // app's router would match that mount path case-insensitively.
  const router = Router({ caseSensitive: true, strict: true });
  for (const route of routes) {
    const own = route.bodyLimit === undefined ? settings : { ...settings, bodyLimit: checkedLimit(route.bodyLimit) };
    router.route(prefix + route.path)[lowerCase(route.method)](serve(route, own));
  }
  for (const [path, methods] of allowedMethods(routes, prefix)) router.all(path, otherMethod(methods));
  // After every route and its 405s: only paths no route answers reach a fallback.
  if (options.fallbacks?.length) router.use(serveFallbacks(options.fallbacks, settings, prefix));
  router.use(renderRouterError(settings));
  target.use(router);
}

function checkedLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ConfigurationError(`bodyLimit must be a number of bytes, got ${bytes}`);
  return bytes;
}

function lowerCase<M extends string>(method: M): Lowercase<M> {
  return method.toLowerCase() as Lowercase<M>;
}

function serve(route: RouteDescriptor, settings: Settings): RequestHandler {
  return (req, res) => answer({ req, res, settings }, (neutral) => runRoute(route, neutral, settings.logger));
}

// Paths are matched as sent (case-sensitively), like the routes.
function serveFallbacks(fallbacks: readonly Fallback[], settings: Settings, prefix: string): RequestHandler {
  return (req, res, next) => {
    const fallback = req.path.startsWith(prefix) ? fallbackFor(fallbacks, req.path.slice(prefix.length)) : undefined;
    if (!fallback) return next();
    return answer({ req, res, settings }, (neutral) => runFallback(fallback, neutral, settings.logger));
  };
}

/** Reads the request, runs `serve` on it and writes its result; every failure becomes a JSON error. */
async function answer(
  { req, res, settings }: { req: Request; res: Response; settings: Settings },
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<void> {
  let result: NeutralResult;
  try {
    result = await serve(await toNeutralRequest(req, res, settings));
  } catch (error) {
    result = errorToResult(error, settings.logger);
  }
  try {
    writeResult(res, result, settings.logger);
  } catch (error) {
    writeResult(res, errorToResult(error, settings.logger), settings.logger);
  }
}

// Express falls through to an HTML 404 here; answer as @crudsmith/koa does: OPTIONS lists
// the methods, any other method is a JSON 405 (every error body is JSON, DESIGN §2).
function otherMethod(methods: string[]): RequestHandler {
  const allow = methods.join(', ');
  return (req: Request, res: Response) => {
    res.setHeader('Allow', allow);
    const result: NeutralResult = req.method === 'OPTIONS' ? { status: 200, body: '' } : { status: 405, json: { detail: 'Method Not Allowed' } };
    writeResult(res, result, console);
  };
}

// Errors the router raises itself before a route runs: a parameter that is not valid
// percent-encoding (a URIError with status 400). Our own handlers never call next(error).
function renderRouterError(settings: Settings): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const known = error instanceof URIError ? new BadRequestError('Path is not valid percent-encoded UTF-8') : error;
    writeResult(res, errorToResult(known, settings.logger), settings.logger);
  };
}
