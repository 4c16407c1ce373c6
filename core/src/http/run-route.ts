import type { NeutralRequest, NeutralResult } from './neutral';
import type { RouteDescriptor } from './route';
import { errorToResult, requestContext, type ErrorLogger } from './render-error';

/**
 * Serves one request with one route: resolves the route's dependencies in order (unless
 * its handler does), runs the handler, and renders any error. Adapters call this and only translate.
 */
export async function runRoute(route: RouteDescriptor, req: NeutralRequest, logger?: ErrorLogger): Promise<NeutralResult> {
  try {
    if (!route.resolvesDependencies) for (const dependency of route.dependencies) await req.resolve(dependency);
    return await route.handler(req);
  } catch (error) {
    return errorToResult(error, logger, requestContext(req.headers));
  }
}
