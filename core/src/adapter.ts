// @crudsmith/core/adapter: what an HTTP adapter needs and an application does not. An
// adapter translates its framework's request into a NeutralRequest, runs the route, and
// writes the NeutralResult back; everything the adapters share lives here, once.

/** The adapter kit: the shared options, the read-serve-write sequence, fallbacks and 405s. */
export { adapterSettings, bodyLimitOf, fallbackAt } from './adapter-kit/adapter-options';
export type { AdapterOptions, AdapterSettings } from './adapter-kit/adapter-options';
export { answer } from './adapter-kit/answer';
export type { Exchange } from './adapter-kit/answer';
export { allowedMethods, otherMethodResult } from './adapter-kit/allowed-methods';
export { runFallback } from './adapter-kit/fallback';
export { mountPlan, answerRequest } from './adapter-kit/mount-plan';
export type { Mountable, MountPlan, MountedRoute, AdapterExchange } from './adapter-kit/mount-plan';
export { errorLoggerFor } from './adapter-kit/error-report';

/** Running a route on a neutral request, and rendering any error as the JSON body. */
export { createRequest } from './http/neutral';
export type { RequestInit } from './http/neutral';
export { routeRunner, runRoute } from './http/run-route';
export { errorToResult } from './http/render-error';
export type { AddressResolver } from './http/client-address';

/** Reading a Node request: body, path, headers, cookies, query. */
export { readBody, readBodyByType, checkJsonDepth } from './adapter-kit/wire/read-body';
export type { BodyLimits, TypeTest } from './adapter-kit/wire/read-body';
export { flattenHeaders, decodePath, splitUrl, cookiesOf, parseQuery } from './adapter-kit/wire/request-parts';

/** Deciding the bytes of a result, the same on every framework. */
export { toPayload, hasContentType, isPlainJson } from './adapter-kit/wire/payload';
export type { Payload } from './adapter-kit/wire/payload';
