import type { RouterContext } from '@koa/router';
import { parse as parseCookies } from 'cookie';
import { BadRequestError, createRequest, type AddressResolver, type HttpMethod, type NeutralRequest } from '@crudsmith/core';
import { groupEntries, readBody } from './read-body';

/** What the adapter needs to read a request, fixed when the routes are mounted. */
export interface ReadSettings {
  bodyLimit: number;
  clientAddress: AddressResolver;
}

/** Reads a Koa request (path, params, query, headers, cookies, body) into the neutral shape. */
export async function toNeutralRequest(ctx: RouterContext, settings: ReadSettings): Promise<NeutralRequest> {
  const path = decodePath(ctx.path);
  const { body, files } = await readBody(ctx, settings.bodyLimit);
  const headers: Record<string, string | undefined> = {};
  // Node already lower-cases names; only Set-Cookie arrives as an array, joined as Node joins the rest.
  for (const [name, value] of Object.entries(ctx.req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return createRequest({
    method: ctx.method as HttpMethod,
    path,
    params: { ...ctx.params },
    query: groupEntries(new URLSearchParams(ctx.querystring)),
    headers,
    cookies: definedOnly(parseCookies(ctx.get('Cookie'))),
    body,
    files,
    clientAddress: settings.clientAddress(ctx.req.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Shared with the app's own Koa middleware, which may have put things there first.
    state: ctx.state,
  });
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
