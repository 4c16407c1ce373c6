import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import {
  ConfigurationError, createAddressResolver, errorToResult, fallbackFor, runFallback, runRoute,
  type AddressResolver, type ErrorLogger, type Fallback, type NeutralRequest, type NeutralResult, type RouteDescriptor,
} from '@crudsmith/core';
import { registerBodyParsers } from './body-parsers';
import { toKnownError } from './framework-errors';
import { allowedMethods } from './other-methods';
import { toNeutralRequest } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`. */
export interface FastifyAdapterOptions {
  /** Path prepended to every route, such as `/api/v1` (the plugin's Fastify prefix). */
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

interface Settings {
  clientAddress: AddressResolver;
  logger: ErrorLogger;
  /** Where the routes are mounted, and the fallbacks under it. */
  prefix: string;
  fallbacks: readonly Fallback[];
}

/** Methods a route can answer with a 405; HEAD comes with GET, on Fastify as on Koa. */
const METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/**
 * Registers route descriptors on the user's Fastify instance, in one encapsulated plugin
 * (its own body parsers and error handler, under `prefix`). Paths match exactly as written
 * with Fastify's default router options (case-sensitive, trailing slash significant).
 */
export function mountRoutes(fastify: FastifyInstance, routes: readonly RouteDescriptor[], options: FastifyAdapterOptions = {}): void {
  const bodyLimit = checkedLimit(options.bodyLimit ?? 1024 * 1024);
  const settings: Settings = {
    clientAddress: createAddressResolver(options.trustedProxies ?? []),
    logger: options.logger ?? console,
    prefix: options.prefix ?? '',
    fallbacks: options.fallbacks ?? [],
  };

  fastify.register(async (instance) => {
    registerBodyParsers(instance, bodyLimit);
    // Errors before our handler (body parsing, the app's hooks): JSON {detail}, never Fastify's own shape.
    instance.setErrorHandler((error, _request, reply) => writeResult(reply, errorToResult(toKnownError(error), settings.logger)));
    // 'slash': a '/' route under the prefix answers `/api/` only, not also `/api`.
    // The body parsers read each route's limit back from request.routeOptions.bodyLimit.
    for (const route of routes) {
      const limit = route.bodyLimit === undefined ? bodyLimit : checkedLimit(route.bodyLimit);
      instance.route({ method: route.method, url: route.path, prefixTrailingSlash: 'slash', bodyLimit: limit, handler: serve(route, settings) });
    }
    for (const [path, methods] of allowedMethods(routes, '')) {
      const others = METHODS.filter((method) => !methods.includes(method));
      if (others.length > 0) instance.route({ method: others, url: path, prefixTrailingSlash: 'slash', bodyLimit, handler: otherMethod(methods) });
    }
    for (const fallback of options.fallbacks ?? []) registerFallback(instance, fallback, { settings, routes });
  }, { prefix: options.prefix });
}

function checkedLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ConfigurationError(`bodyLimit must be a number of bytes, got ${bytes}`);
  return bytes;
}

function serve(route: RouteDescriptor, settings: Settings) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    // find-my-way lets `/items/:id` match `/items/` with an empty id; Koa and Express do
    // not, and no route means that: answer as if nothing matched.
    if (Object.values(request.params as Record<string, string>).includes('')) return unmatched(request, reply, settings);
    return answer({ request, reply, settings }, (req) => runRoute(route, req, settings.logger));
  };
}

/** A request no route answers: the fallback covering its path, or the app's own 404. */
function unmatched(request: FastifyRequest, reply: FastifyReply, settings: Settings) {
  const path = request.url.split('?')[0].slice(settings.prefix.length);
  const fallback = fallbackFor(settings.fallbacks, path);
  if (!fallback) return reply.callNotFound();
  return answer({ request, reply, settings }, (req) => runFallback(fallback, req, settings.logger));
}

// A wildcard under the prefix, and the prefix itself unless a route (with its 405s) has that
// path: find-my-way tries static and parametric routes before a wildcard, so only paths no
// route answers get here.
function registerFallback(instance: FastifyInstance, fallback: Fallback, { settings, routes }: { settings: Settings; routes: readonly RouteDescriptor[] }): void {
  const prefix = fallback.prefix.replace(/\/$/, '');
  const handler = (request: FastifyRequest, reply: FastifyReply) => answer({ request, reply, settings }, (req) => runFallback(fallback, req, settings.logger));
  instance.route({ method: METHODS, url: `${prefix}/*`, handler });
  if (prefix !== '' && !routes.some((route) => route.path === prefix)) instance.route({ method: METHODS, url: prefix, prefixTrailingSlash: 'slash', handler });
}

/** Runs `serve` on the request and writes its result; every failure becomes a JSON error. */
async function answer(
  { request, reply, settings }: { request: FastifyRequest; reply: FastifyReply; settings: Settings },
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<FastifyReply> {
  let result: NeutralResult;
  try {
    result = await serve(toNeutralRequest(request, settings.clientAddress));
  } catch (error) {
    result = errorToResult(error, settings.logger);
  }
  try {
    return writeResult(reply, result);
  } catch (error) {
    return writeResult(reply, errorToResult(error, settings.logger));
  }
}

// Fastify answers its own 404 here; answer as @crudsmith/koa does: OPTIONS lists the
// methods, any other method is a JSON 405 (every error body is JSON, DESIGN §2).
function otherMethod(methods: string[]) {
  const allow = methods.join(', ');
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('allow', allow);
    return writeResult(reply, request.method === 'OPTIONS' ? { status: 200, body: '' } : { status: 405, json: { detail: 'Method Not Allowed' } });
  };
}
