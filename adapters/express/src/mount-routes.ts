import type {
  Application,
  ErrorRequestHandler,
  Request,
  RequestHandler,
  Response,
  Router as ExpressRouter,
} from 'express';
// The one runtime import of express: the user's own, resolved as a peer dependency.
import { Router } from 'express';
import {
  BadRequestError,
  type ErrorLogger,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import {
  allowedMethods,
  errorLoggerFor,
  errorToResult,
  answerRequest,
  fallbackAt,
  mountPlan,
  otherMethodResult,
  runFallback,
  routeRunner,
  type AdapterOptions,
  type AdapterSettings,
  type Mountable,
} from '@crudsmith/core/adapter';
import { toNeutralRequest } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`: the options every adapter takes. */
export type ExpressAdapterOptions = AdapterOptions;

/**
 * Mounts route descriptors (or a bootstrapped app's routes and fallbacks) on the user's
 * Express app or router, through a sub-router that matches paths exactly as written (case
 * and trailing slash). Unmatched requests go on to the app's next middleware, unless a
 * fallback (or `jsonNotFound`) covers them.
 */
export function mountRoutes(
  target: Application | ExpressRouter,
  source: Mountable,
  options: ExpressAdapterOptions = {},
): void {
  const { routes, settings, served } = mountPlan(source, options);
  const { prefix } = settings;
  // One spelling per route: another case or slash is a 404, not a fresh rate-limit bucket.
  // The prefix is part of each route rather than a use() mount path, because the app's
  // router would match that mount path case-insensitively.
  const router = Router({ caseSensitive: true, strict: true });
  for (const { route, settings: own } of served) {
    router.route(prefix + route.path)[lowerCase(route.method)](serve(route, own));
  }
  // Express falls through to an HTML 404 for a method a path does not serve: answer 405.
  for (const [path, methods] of allowedMethods(routes, prefix)) {
    router.all(path, (req, res) => writeResult(res, otherMethodResult(req.method, methods), settings.logger));
  }
  // After every route and its 405s: only paths no route answers reach a fallback.
  if (settings.fallbacks.length > 0) router.use(serveFallbacks(settings));
  router.use(renderRouterError(settings));
  target.use(router);
}

function lowerCase<M extends string>(method: M): Lowercase<M> {
  return method.toLowerCase() as Lowercase<M>;
}

function serve(route: RouteDescriptor, settings: AdapterSettings): RequestHandler {
  const run = routeRunner(route, settings.logger);
  return (req, res) => exchange({ req, res, settings }, run);
}

// Paths are matched as sent (case-sensitively), like the routes.
function serveFallbacks(settings: AdapterSettings): RequestHandler {
  return (req, res, next) => {
    const fallback = fallbackAt(settings, req.path);
    if (!fallback) return next();
    return exchange({ req, res, settings }, (neutral) => runFallback(fallback, neutral, settings.logger));
  };
}

function exchange(
  { req, res, settings }: { req: Request; res: Response; settings: AdapterSettings },
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<void> {
  const io = {
    read: () => toNeutralRequest(req, res, settings),
    write: (result: NeutralResult, logger: ErrorLogger) => writeResult(res, result, logger),
  };
  return answerRequest(settings, req.headers, io, serve);
}

// Errors the router raises itself before a route runs: a parameter that is not valid
// percent-encoding (a URIError with status 400). Our own handlers never call next(error).
function renderRouterError(settings: AdapterSettings): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const known = error instanceof URIError ? new BadRequestError('Path is not valid percent-encoded UTF-8') : error;
    const logger = errorLoggerFor(settings.logger, req.headers);
    writeResult(res, errorToResult(known, logger), logger);
  };
}
