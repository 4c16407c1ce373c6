import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { BadRequestError, createRequest, type AddressResolver, type HttpMethod, type NeutralRequest } from '@crudsmith/core';
import { groupEntries, readBody } from './read-body';

/** What the adapter needs to read a request, fixed when the routes are mounted. */
export interface ReadSettings {
  bodyLimit: number;
  clientAddress: AddressResolver;
}

/** Reads an Express request (path, params, query, headers, cookies, body) into the neutral shape. */
export async function toNeutralRequest(req: Request, res: Response, settings: ReadSettings): Promise<NeutralRequest> {
  // originalUrl, not url: a router mounted under a path sees only the rest in req.url.
  const [rawPath, rawQuery = ''] = splitUrl(req.originalUrl);
  const path = decodePath(rawPath);
  const { body, files } = await readBody(req, settings.bodyLimit);
  const headers: Record<string, string | undefined> = {};
  // Node already lower-cases names; only Set-Cookie arrives as an array, joined as Node joins the rest.
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return createRequest({
    method: req.method as HttpMethod,
    path,
    params: flatParams(req.params),
    // Not req.query: its parser is an app setting, and we want repeated keys as arrays, flat.
    query: groupEntries(new URLSearchParams(rawQuery)),
    headers,
    cookies: definedOnly(parseCookies(headers.cookie ?? '')),
    body,
    files,
    // Not req.ip, which follows the app's 'trust proxy' setting rather than trustedProxies.
    clientAddress: settings.clientAddress(req.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Express's per-request state, so the app's own middleware can hand values to dependencies.
    state: res.locals,
  });
}

// Express 5 gives a `*wildcard` parameter as its list of segments.
function flatParams(params: Record<string, string | string[]>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) result[name] = Array.isArray(value) ? value.join('/') : value;
  return result;
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
