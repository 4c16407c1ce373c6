import type { RouterContext } from '@koa/router';
import type { HttpMethod, NeutralRequest, UploadedFile } from '@crudsmith/core';
import {
  cookiesOf,
  createRequest,
  decodePath,
  flattenHeaders,
  parseQuery,
  readBodyByType,
  type AdapterSettings,
} from '@crudsmith/core/adapter';

/** Reads a Koa request (path, params, query, headers, cookies, body) into the neutral shape. */
export function toNeutralRequest(
  ctx: RouterContext,
  settings: Pick<AdapterSettings, 'bodyLimit' | 'maxBodyValues' | 'clientAddress'>,
): NeutralRequest | Promise<NeutralRequest> {
  const path = decodePath(ctx.path);
  // Without a Content-Type no reader applies (most GETs): the request is ready at once.
  if (ctx.req.headers['content-type'] === undefined)
    return neutral(ctx, settings, path, { body: undefined, files: [] });
  return readBodyByType(ctx.req, (types) => Boolean(ctx.is(types)), settings).then((parts) =>
    neutral(ctx, settings, path, parts),
  );
}

function neutral(
  ctx: RouterContext,
  settings: Pick<AdapterSettings, 'clientAddress'>,
  path: string,
  { body, files }: { body: unknown; files: UploadedFile[] },
): NeutralRequest {
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
