import type { NeutralRequest, NeutralResult } from './neutral';
import type { RouteDescriptor } from './route';
import { errorToResult, requestContext, type ErrorLogger } from './render-error';
import { routeWrapper } from './route-wrapper';

/**
 * Serves one request with one route: resolves the route's dependencies in order (unless
 * its handler does), runs the handler, and renders any error. Adapters call this and only translate.
 */
export function runRoute(route: RouteDescriptor, req: NeutralRequest, logger?: ErrorLogger): Promise<NeutralResult> {
  const wrap = routeWrapper();
  if (wrap) return wrap(req, () => serve(route, req, logger));
  return serve(route, req, logger);
}

/**
 * What an adapter serves one route with, made once at mount: `runRoute`, except that a
 * failure is left to the caller, which renders it as `runRoute` does (the adapter kit's
 * `answer`, with the request's logger), so a request costs one promise fewer.
 */
export function routeRunner(
  route: RouteDescriptor,
  logger?: ErrorLogger,
): (req: NeutralRequest) => Promise<NeutralResult> {
  return (req) => {
    const wrap = routeWrapper();
    // A wrapper is handed a result, never a failure: it renders errors inside, as runRoute.
    if (wrap) return wrap(req, () => serve(route, req, logger));
    return callHandler(route, req);
  };
}

function serve(route: RouteDescriptor, req: NeutralRequest, logger?: ErrorLogger): Promise<NeutralResult> {
  const failed = (error: unknown) => errorToResult(error, logger, requestContext(req.headers));
  try {
    return callHandler(route, req).then(undefined, failed);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
}

/**
 * Calls the route's handler after its dependencies, in order, unless the handler resolves
 * them itself (`resolvesDependencies`: a route bootstrap wrapped, whose plugins' before
 * hooks run first). The one place that decides who resolves a route's dependencies, for
 * runRoute and bootstrap's wrapper alike. Errors are the caller's to render.
 */
export function callHandler(route: RouteDescriptor, req: NeutralRequest): Promise<NeutralResult> {
  // Most generated routes have no dependency: their handler runs at once, without an
  // async frame of its own around it.
  if (route.resolvesDependencies || route.dependencies.length === 0) return route.handler(req);
  return withDependencies(route, req);
}

async function withDependencies(route: RouteDescriptor, req: NeutralRequest): Promise<NeutralResult> {
  for (const dependency of route.dependencies) await req.resolve(dependency);
  return route.handler(req);
}
