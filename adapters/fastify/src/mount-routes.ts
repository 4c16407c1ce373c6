import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { ErrorLogger, NeutralRequest, NeutralResult, RouteDescriptor, Fallback } from '@crudsmith/core';
import {
  allowedMethods,
  answerRequest,
  errorLoggerFor,
  errorToResult,
  fallbackAt,
  mountPlan,
  otherMethodResult,
  runFallback,
  routeRunner,
  type AdapterOptions,
  type AdapterSettings,
  type Mountable,
} from '@crudsmith/core/adapter';
import { registerBodyParsers } from './body-parsers';
import { toKnownError } from './framework-errors';
import { toNeutralRequest } from './to-neutral-request';
import { writeResult } from './write-result';

/** Options of `mountRoutes`: the options every adapter takes (`prefix` is the plugin's Fastify prefix). */
export type FastifyAdapterOptions = AdapterOptions;

/**
 * Registers route descriptors (or a bootstrapped app's routes and fallbacks) on the user's
 * Fastify instance, in one encapsulated plugin (its own body parsers and error handler,
 * under `prefix`). Paths match exactly as written with Fastify's default router options
 * (case-sensitive, trailing slash significant).
 */
export function mountRoutes(fastify: FastifyInstance, source: Mountable, options: FastifyAdapterOptions = {}): void {
  const { routes, settings, served } = mountPlan(source, options);

  fastify.register(
    async (instance) => {
      // Every method node parses (PROPFIND, MKCOL, SEARCH... as well as Fastify's own) reaches
      // a route, its 405 or a fallback, as every method does on Koa and Express; Fastify would
      // answer its own 404 for a method it does not route. HEAD comes with GET, on Fastify as on Koa.
      routeEveryMethod(instance);
      const methods = instance.supportedMethods as HTTPMethods[];
      registerBodyParsers(instance, settings.bodyLimit, settings.maxBodyValues);
      // Errors before our handler (body parsing, the app's hooks): JSON {detail}, never Fastify's own shape.
      instance.setErrorHandler((error, request, reply) =>
        writeResult(reply, errorToResult(toKnownError(error), errorLoggerFor(settings.logger, request.raw.headers))),
      );
      // 'slash': a '/' route under the prefix answers `/api/` only, not also `/api`.
      // The body parsers read each route's limit back from request.routeOptions.bodyLimit.
      for (const { route, settings: own } of served) {
        instance.route({
          method: route.method,
          url: route.path,
          prefixTrailingSlash: 'slash',
          bodyLimit: own.bodyLimit,
          handler: serve(route, settings),
        });
      }
      // Fastify answers its own 404 for a method a path does not serve: answer 405.
      for (const [path, allowed] of allowedMethods(routes)) {
        const others = methods.filter((method) => !allowed.includes(method));
        const spelledAsRouted = spellingCheck();
        const handler = (request: FastifyRequest, reply: FastifyReply) =>
          hasEmptyParam(request) || !spelledAsRouted(request)
            ? unmatched(request, reply, settings)
            : writeResult(reply, otherMethodResult(request.method, allowed));
        if (others.length > 0)
          instance.route({
            method: others,
            url: path,
            prefixTrailingSlash: 'slash',
            bodyLimit: settings.bodyLimit,
            handler,
          });
      }
      for (const fallback of settings.fallbacks) registerFallback(instance, fallback, { settings, routes, methods });
    },
    { prefix: options.prefix },
  );
}

/**
 * Makes Fastify route every method node's parser accepts (CONNECT aside, which node never
 * hands to a request listener). Fastify keeps one table of methods per app: the app's own
 * routes may use them too, and its paths answer them with its 404 as before. They may
 * carry a body, as on Koa and Express, which read a body by its type whatever the method.
 */
function routeEveryMethod(instance: FastifyInstance): void {
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !instance.supportedMethods.includes(method))
      instance.addHttpMethod(method, { hasBody: true });
  }
}

function serve(route: RouteDescriptor, settings: AdapterSettings) {
  const spelledAsRouted = spellingCheck();
  const run = routeRunner(route, settings.logger);
  return (request: FastifyRequest, reply: FastifyReply) => {
    // find-my-way lets `/items/:id` match `/items/` with an empty id; Koa and Express do
    // not, and no route means that: answer as if nothing matched.
    if (hasEmptyParam(request) || !spelledAsRouted(request)) return unmatched(request, reply, settings);
    return exchange({ request, reply, settings }, run);
  };
}

/**
 * Whether a request's fixed path segments are written as its route writes them, for the
 * handler of one route. find-my-way decodes the path before matching, so `/%69tems` would
 * reach `/items`; Koa and Express match the path as sent and answer 404, and so does this
 * adapter. The route's pattern is split on the first request, not on each: Fastify builds
 * `request.routeOptions` afresh every time it is read.
 */
function spellingCheck(): (request: FastifyRequest) => boolean {
  let written: readonly string[] | null | undefined;
  return (request) => {
    if (written === undefined) written = request.routeOptions.url?.split('/') ?? null;
    if (written === null) return true;
    const url = request.raw.url ?? '';
    const mark = url.indexOf('?');
    const sent = (mark === -1 ? url : url.slice(0, mark)).split('/');
    if (sent.length !== written.length) return false;
    for (let i = 0; i < written.length; i++) {
      const segment = written[i];
      if (segment !== sent[i] && !segment.includes(':') && !segment.includes('*')) return false;
    }
    return true;
  };
}

// A for-in rather than Object.values: every request of a route runs it.
function hasEmptyParam(request: FastifyRequest): boolean {
  const params = request.params as Record<string, string>;
  for (const name in params) if (params[name] === '') return true;
  return false;
}

/** A request no route answers: the fallback covering its path, or the app's own 404. */
function unmatched(request: FastifyRequest, reply: FastifyReply, settings: AdapterSettings) {
  const fallback = fallbackAt(settings, request.url.split('?')[0]);
  if (!fallback) return reply.callNotFound();
  return exchange({ request, reply, settings }, (req) => runFallback(fallback, req, settings.logger));
}

// A wildcard under the prefix, and the prefix itself unless a route (with its 405s) has that
// path: find-my-way tries static and parametric routes before a wildcard, so only paths no
// route answers get here.
function registerFallback(
  instance: FastifyInstance,
  fallback: Fallback,
  {
    settings,
    routes,
    methods,
  }: { settings: AdapterSettings; routes: readonly RouteDescriptor[]; methods: HTTPMethods[] },
): void {
  const prefix = fallback.prefix.replace(/\/$/, '');
  const handler = (request: FastifyRequest, reply: FastifyReply) =>
    exchange({ request, reply, settings }, (req) => runFallback(fallback, req, settings.logger));
  instance.route({ method: methods, url: `${prefix}/*`, handler });
  if (prefix !== '' && !routes.some((route) => route.path === prefix))
    instance.route({ method: methods, url: prefix, prefixTrailingSlash: 'slash', handler });
}

function exchange(
  { request, reply, settings }: { request: FastifyRequest; reply: FastifyReply; settings: AdapterSettings },
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
): Promise<FastifyReply> {
  const io = {
    read: () => toNeutralRequest(request, settings.clientAddress),
    write: (result: NeutralResult, logger: ErrorLogger) => writeResult(reply, result, logger),
  };
  return answerRequest(settings, request.raw.headers, io, serve);
}
