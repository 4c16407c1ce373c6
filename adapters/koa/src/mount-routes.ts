import type Koa from 'koa';
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import {
  ConfigurationError, createAddressResolver, errorToResult, fallbackFor, runFallback, runRoute,
  type ErrorLogger, type Fallback, type NeutralRequest, type NeutralResult, type RouteDescriptor, type SessionManager,
} from '@crudsmith/core';
import { assertKoaSession } from './koa-session';
import { toNeutralRequest, type ReadSettings } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`. */
export interface KoaAdapterOptions {
  /** Path prepended to every route, such as `/api/v1`. */
  prefix?: string;
  /** Largest accepted request body in bytes (JSON, form or multipart); larger is 413. Default 1 MiB. */
  bodyLimit?: number;
  /** Proxy addresses or CIDR ranges whose `X-Forwarded-For` is believed. Default: none. */
  trustedProxies?: readonly string[];
  /** Where unexpected errors are reported. Default: console. */
  logger?: ErrorLogger;
  /** Answers unmatched paths under their prefixes (the app's `fallbacks`); needs the Koa app, not a router. */
  fallbacks?: readonly Fallback[];
  /**
   * Session managers the routes use, carried by koa-session (`koaSessionOptions`):
   * mounting fails at startup unless koa-session carries each one, installed before.
   */
  sessions?: readonly SessionManager[];
}

interface Settings extends ReadSettings {
  logger: ErrorLogger;
}

/**
 * Mounts route descriptors on the user's Koa app or @koa/router, through a sub-router
 * that matches paths exactly as written (case and trailing slash). Unmatched requests go
 * on to the app's next middleware.
 */
export function mountRoutes(target: Koa<any, any> | Router<any, any>, routes: readonly RouteDescriptor[], options: KoaAdapterOptions = {}): void {
  const settings: Settings = {
    bodyLimit: checkedLimit(options.bodyLimit ?? 1024 * 1024),
    clientAddress: createAddressResolver(options.trustedProxies ?? []),
    logger: options.logger ?? console,
  };
  // One spelling per route (DESIGN §8): another case or slash is a 404, not a fresh rate-limit bucket.
  const router = new Router({ prefix: options.prefix, sensitive: true, strict: true });
  for (const route of routes) {
    const own = route.bodyLimit === undefined ? settings : { ...settings, bodyLimit: checkedLimit(route.bodyLimit) };
    router.register(route.path, [route.method], serve(route, own));
  }

  for (const manager of options.sessions ?? []) {
    if (isRouter(target)) throw new ConfigurationError('sessions: mount on the Koa app itself, so that koa-session can be checked to run before the routes');
    assertKoaSession(target, manager);
  }
  const fallbacks = options.fallbacks ?? [];
  if (isRouter(target)) {
    // @koa/router runs use() middleware only when a route matched, so it cannot host a fallback.
    if (fallbacks.length > 0) throw new ConfigurationError('fallbacks need the Koa app: mount onto the app, not a router');
    // The user's router copies these layers, and its own allowedMethods() covers them.
    target.use(router.routes());
  } else {
    target.use(router.routes());
    target.use(jsonAllowedMethods(router));
    if (fallbacks.length > 0) target.use(serveFallbacks(router, fallbacks, { ...settings, prefix: options.prefix ?? '' }));
  }
}

function checkedLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ConfigurationError(`bodyLimit must be a number of bytes, got ${bytes}`);
  return bytes;
}

// Duck-typed: @koa/router ships CJS and ESM builds, so the user's class may not be ours.
function isRouter(target: Koa<any, any> | Router<any, any>): target is Router<any, any> {
  return typeof (target as Partial<Router>).routes === 'function';
}

function serve(route: RouteDescriptor, settings: Settings): RouterMiddleware {
  return (ctx) => answer(ctx, settings, (req) => runRoute(route, req, settings.logger));
}

/** Reads the request, runs `serve` on it and writes its result; every failure becomes a JSON error. */
async function answer(ctx: Koa.Context, settings: Settings, serve: (req: NeutralRequest) => Promise<NeutralResult>): Promise<void> {
  let result: NeutralResult;
  try {
    result = await serve(await toNeutralRequest(ctx as RouterContext, settings));
  } catch (error) {
    result = errorToResult(error, settings.logger);
  }
  try {
    writeResult(ctx, result);
  } catch (error) {
    writeResult(ctx, errorToResult(error, settings.logger));
  }
}

// Runs when no route matched; a path some route answers with another method is left to
// allowedMethods (405), and a path under no fallback goes on to the app.
function serveFallbacks(router: Router, fallbacks: readonly Fallback[], settings: Settings & { prefix: string }): Koa.Middleware {
  return async (ctx, next) => {
    const { prefix } = settings;
    const fallback = ctx.path.startsWith(prefix) ? fallbackFor(fallbacks, ctx.path.slice(prefix.length)) : undefined;
    if (!fallback || router.match(ctx.path, ctx.method).path.some((layer) => layer.methods.length > 0)) return next();
    return answer(ctx, settings, (req) => runFallback(fallback, req, settings.logger));
  };
}

// Every error body is JSON with a `detail` (DESIGN §2), the router's own 405 and 501 too.
function jsonAllowedMethods(router: Router): Koa.Middleware {
  const allowedMethods = router.allowedMethods();
  return async (ctx, next) => {
    await allowedMethods(ctx as RouterContext, next);
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
      writeResult(ctx, { status: ctx.status, json: { detail: ctx.message } });
    }
  };
}
