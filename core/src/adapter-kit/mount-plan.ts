import type { IncomingHttpHeaders } from 'node:http';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import type { ErrorLogger } from '../http/render-error';
import type { RouteDescriptor } from '../http/route';
import type { Fallback } from '../plugin/plugin';
import { adapterSettings, bodyLimitOf, type AdapterOptions, type AdapterSettings } from './adapter-options';
import { answer } from './answer';
import { errorLoggerFor } from './error-report';

/**
 * What an adapter's `mountRoutes` serves: a list of routes, or a bootstrapped app, whose
 * fallbacks then come along with its routes (before any the options name).
 */
export type Mountable =
  | readonly RouteDescriptor[]
  | { readonly routes: readonly RouteDescriptor[]; readonly fallbacks?: readonly Fallback[] };

/** One route and the settings it is served under (its own body limit, when it sets one). */
export interface MountedRoute {
  route: RouteDescriptor;
  settings: AdapterSettings;
}

/** What every adapter decides before it registers anything, once, at mount time. */
export interface MountPlan {
  routes: readonly RouteDescriptor[];
  /** The options, checked and filled in, the app's fallbacks included. */
  settings: AdapterSettings;
  /** Each route with its own settings, in order. */
  served: MountedRoute[];
}

/** Checks the options and gathers the routes and fallbacks of `source`; a bad value fails at startup. */
export function mountPlan(source: Mountable, options: AdapterOptions): MountPlan {
  const routes = isRouteList(source) ? source : source.routes;
  const own = isRouteList(source) ? [] : (source.fallbacks ?? []);
  const settings = adapterSettings({ ...options, fallbacks: [...own, ...(options.fallbacks ?? [])] });
  const served = routes.map((route) => ({ route, settings: { ...settings, bodyLimit: bodyLimitOf(route, settings) } }));
  return { routes, settings, served };
}

/** How an adapter reads one request and writes its answer, told the request's error logger. */
export interface AdapterExchange<T> {
  read(): NeutralRequest | Promise<NeutralRequest>;
  write(result: NeutralResult, logger: ErrorLogger): T;
}

/**
 * `answer` for one request of an adapter: what fails to be read, served or written is
 * reported to the app's logger with the request's id (its `headers`), so it joins the
 * request's log line.
 */
export function answerRequest<T>(
  settings: AdapterSettings,
  headers: IncomingHttpHeaders,
  io: AdapterExchange<T>,
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<T> {
  const logger = errorLoggerFor(settings.logger, headers);
  return answer({ read: () => io.read(), write: (result) => io.write(result, logger) }, serve, logger);
}

function isRouteList(source: Mountable): source is readonly RouteDescriptor[] {
  return Array.isArray(source);
}
