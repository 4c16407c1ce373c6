import type { Context } from 'koa';
import type { RouterContext } from '@koa/router';
import { cookiesOf, createRequest, decodePath, flattenHeaders, parseQuery, readBody, type AddressResolver, type HttpMethod, type NeutralRequest, type UploadedFile } from '@crudsmith/core';

/** What the adapter needs to read a request, fixed when the routes are mounted. */
export interface ReadSettings {
  bodyLimit: number;
  clientAddress: AddressResolver;
}

/** Reads a Koa request (path, params, query, headers, cookies, body) into the neutral shape. */
export async function toNeutralRequest(ctx: RouterContext, settings: ReadSettings): Promise<NeutralRequest> {
  const path = decodePath(ctx.path);
  const { body, files } = await bodyOf(ctx, settings.bodyLimit);
  const headers = flattenHeaders(ctx.req.headers);
  return createRequest({
    method: ctx.method as HttpMethod,
    path,
    params: { ...ctx.params },
    query: parseQuery(ctx.querystring),
    headers,
    cookies: cookiesOf(headers.cookie),
    body,
    files,
    clientAddress: settings.clientAddress(ctx.req.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Shared with the app's own Koa middleware, which may have put things there first.
    state: ctx.state,
  });
}

/** The body by content type (ctx.is() answers null when there is no body); other types stay unread. */
async function bodyOf(ctx: Context, limit: number): Promise<{ body: unknown; files: UploadedFile[] }> {
  // Without a Content-Type no reader applies (most GETs): skip the three look-ups.
  if (ctx.req.headers['content-type'] === undefined) return { body: undefined, files: [] };
  // JSON first: it is most bodies, and each look-up parses the Content-Type again.
  if (ctx.is('json', '+json')) return { body: await readBody.json(ctx.req, limit), files: [] };
  if (ctx.is('multipart/form-data')) return readBody.multipart(ctx.req, limit);
  if (ctx.is('urlencoded')) return { body: await readBody.form(ctx.req, limit), files: [] };
  return { body: undefined, files: [] };
}
