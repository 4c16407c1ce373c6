import type { FastifyRequest } from 'fastify';
import type { HttpMethod, NeutralRequest } from '@crudsmith/core';
import {
  cookiesOf,
  createRequest,
  decodePath,
  flattenHeaders,
  parseQuery,
  splitUrl,
  type AddressResolver,
} from '@crudsmith/core/adapter';
import { filesOf } from './body-parsers';

/** Reads a Fastify request (path, params, query, headers, cookies, parsed body) into the neutral shape. */
export function toNeutralRequest(request: FastifyRequest, clientAddress: AddressResolver): NeutralRequest {
  const [rawPath, rawQuery] = splitUrl(request.url);
  const headers = flattenHeaders(request.raw.headers);
  return createRequest({
    method: request.method as HttpMethod,
    path: decodePath(rawPath),
    params: { ...(request.params as Record<string, string>) },
    // Not request.query: its parser is an app option, and we want repeated keys as arrays, flat.
    query: parseQuery(rawQuery),
    headers,
    cookies: cookiesOf(headers.cookie),
    // Our parsers (body-parsers.ts) ran before the handler; without a body Fastify leaves it unset.
    body: request.body ?? undefined,
    files: filesOf(request),
    // Not request.ip, which follows the app's trustProxy option rather than trustedProxies.
    clientAddress: clientAddress(request.raw.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Fastify has no per-request state object of its own: each request starts empty.
    state: {},
  });
}
