import type { FastifyRequest } from 'fastify';
import { parse as parseCookies } from 'cookie';
import { BadRequestError, createRequest, type AddressResolver, type HttpMethod, type NeutralRequest } from '@crudsmith/core';
import { filesOf } from './body-parsers';
import { groupEntries } from './read-body';

/** Reads a Fastify request (path, params, query, headers, cookies, parsed body) into the neutral shape. */
export function toNeutralRequest(request: FastifyRequest, clientAddress: AddressResolver): NeutralRequest {
  const [rawPath, rawQuery = ''] = splitUrl(request.url);
  const headers: Record<string, string | undefined> = {};
  // Node already lower-cases names; only Set-Cookie arrives as an array, joined as Node joins the rest.
  for (const [name, value] of Object.entries(request.raw.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return createRequest({
    method: request.method as HttpMethod,
    path: decodePath(rawPath),
    params: { ...(request.params as Record<string, string>) },
    // Not request.query: its parser is an app option, and we want repeated keys as arrays, flat.
    query: groupEntries(new URLSearchParams(rawQuery)),
    headers,
    cookies: definedOnly(parseCookies(headers.cookie ?? '')),
    // Our parsers (body-parsers.ts) ran before the handler; without a body Fastify leaves it unset.
    body: request.body ?? undefined,
    files: filesOf(request),
    // Not request.ip, which follows the app's trustProxy option rather than trustedProxies.
    clientAddress: clientAddress(request.raw.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Fastify has no per-request state object of its own: each request starts empty.
    state: {},
  });
}

function splitUrl(url: string): [string, string?] {
  const mark = url.indexOf('?');
  return mark === -1 ? [url] : [url.slice(0, mark), url.slice(mark + 1)];
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError('Path is not valid percent-encoded UTF-8');
  }
}

function definedOnly(cookies: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(cookies)) if (value !== undefined) result[name] = value;
  return result;
}
