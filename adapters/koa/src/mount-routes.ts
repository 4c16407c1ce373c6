import type Koa from 'koa';
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import { ConfigurationError, type NeutralRequest, type NeutralResult, type RouteDescriptor } from '@crudsmith/core';
import {
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
import type { SessionManager } from '@crudsmith/core/auth';
import { reportSessionErrors } from './koa-session';
import { assertKoaSession } from './koa-session-check';
import { toNeutralRequest } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`: the options every adapter takes, and the sessions koa-session carries. */
export interface KoaAdapterOptions extends AdapterOptions {
  /**
   * Session managers the routes use, carried by koa-session (`koaSessionOptions`):
   * mounting fails at startup unless koa-session carries each one, installed before.
   */
  sessions?: readonly SessionManager[];
}

/**
 * Mounts route descriptors (or a bootstrapped app's routes and fallbacks) on the user's
 * Koa app or @koa/router, through a sub-router that matches paths exactly as written (case
 * and trailing slash). Unmatched requests go on to the app's next middleware, unless a
 * fallback (or `jsonNotFound`) covers them.
 */
export function mountRoutes(
  target: Koa<any, any> | Router<any, any>,
  source: Mountable,
  options: KoaAdapterOptions = {},
): void {
  const { settings, served } = mountPlan(source, options);
  // One spelling per route: another case or slash is a 404, not a fresh rate-limit bucket.
  const router = new Router({ prefix: options.prefix, sensitive: true, strict: true });
  for (const { route, settings: own } of served) router.register(route.path, [route.method], serve(route, own));

  for (const manager of options.sessions ?? []) {
    if (isRouter(target))
      throw new ConfigurationError(
        'sessions: mount on the Koa app itself, so that koa-session can be checked to run before the routes',
      );
    assertKoaSession(target, manager);
    reportSessionErrors(manager, settings.logger);
  }
  if (isRouter(target)) {
    // @koa/router runs use() middleware only when a route matched, so it cannot host a fallback.
    if (settings.fallbacks.length > 0)
      throw new ConfigurationError('fallbacks and jsonNotFound need the Koa app: mount onto the app, not a router');
    // The user's router copies these layers, and its own allowedMethods() covers them.
    target.use(router.routes());
  } else {
    target.use(router.routes());
    target.use(jsonAllowedMethods(router));
    if (settings.fallbacks.length > 0) target.use(serveFallbacks(router, settings));
  }
}

// Duck-typed: @koa/router ships CJS and ESM builds, so the user's class may not be ours.
function isRouter(target: Koa<any, any> | Router<any, any>): target is Router<any, any> {
  return typeof (target as Partial<Router>).routes === 'function';
}

function serve(route: RouteDescriptor, settings: AdapterSettings): RouterMiddleware {
  const run = routeRunner(route, settings.logger);
  return (ctx) => exchange(ctx, settings, run);
}

function exchange(
  ctx: Koa.Context,
  settings: AdapterSettings,
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<void> {
  const io = {
    read: () => toNeutralRequest(ctx as RouterContext, settings),
    write: (result: NeutralResult) => writeResult(ctx, result),
  };
  return answerRequest(settings, ctx.req.headers, io, serve);
}

// Runs when no route matched; a path some route answers with another method is left to
// allowedMethods (405), and a path under no fallback goes on to the app.
function serveFallbacks(router: Router, settings: AdapterSettings): Koa.Middleware {
  return async (ctx, next) => {
    const fallback = fallbackAt(settings, ctx.path);
    if (!fallback || router.match(ctx.path, ctx.method).path.some((layer) => layer.methods.length > 0)) return next();
    return exchange(ctx, settings, (req) => runFallback(fallback, req, settings.logger));
  };
}

// A path some route answers, asked with a method none of its routes serves, is a JSON 405
// with `Allow` whatever the method (OPTIONS: 200 with `Allow`), as on Express and Fastify.
// @koa/router's allowedMethods() answers 501 instead for a method outside its own table
// (TRACE, PROPFIND…), on every path, over a fallback's answer too; so the kit answers.
function jsonAllowedMethods(router: Router): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    // Something answered (a fallback, the app): leave it.
    if (ctx.status !== 404 || ctx.body != null) return;
    const allow = new Set<string>();
    for (const layer of router.match(ctx.path, ctx.method).path) for (const method of layer.methods) allow.add(method);
    if (allow.size > 0) writeResult(ctx, otherMethodResult(ctx.method, [...allow].sort()));
  };
}
