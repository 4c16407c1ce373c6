import type { Request, Response } from 'express';
import type { HttpMethod, NeutralRequest, UploadedFile } from '@crudsmith/core';
import {
  checkJsonDepth,
  cookiesOf,
  createRequest,
  decodePath,
  flattenHeaders,
  parseQuery,
  readBodyByType,
  splitUrl,
  type AdapterSettings,
} from '@crudsmith/core/adapter';

/** Reads an Express request (path, params, query, headers, cookies, body) into the neutral shape. */
export function toNeutralRequest(
  req: Request,
  res: Response,
  settings: Pick<AdapterSettings, 'bodyLimit' | 'maxBodyValues' | 'clientAddress'>,
): NeutralRequest | Promise<NeutralRequest> {
  // originalUrl, not url: a router mounted under a path sees only the rest in req.url.
  const [rawPath, rawQuery] = splitUrl(req.originalUrl);
  const path = decodePath(rawPath);
  // Without a Content-Type no reader applies (most GETs): the request is ready at once.
  const url = { path, rawQuery };
  if (!req.readableEnded && req.headers['content-type'] === undefined)
    return neutral({ req, res, settings }, url, { body: undefined, files: [] });
  return bodyOf(req, settings).then((parts) => neutral({ req, res, settings }, url, parts));
}

function neutral(
  { req, res, settings }: { req: Request; res: Response; settings: Pick<AdapterSettings, 'clientAddress'> },
  { path, rawQuery }: { path: string; rawQuery: string },
  { body, files }: { body: unknown; files: UploadedFile[] },
): NeutralRequest {
  const headers = flattenHeaders(req.headers);
  return createRequest({
    method: req.method as HttpMethod,
    path,
    params: flatParams(req.params),
    // Not req.query: its parser is an app setting, and we want repeated keys as arrays, flat.
    query: parseQuery(rawQuery),
    headers,
    cookies: cookiesOf(headers.cookie),
    body,
    files,
    // Not req.ip, which follows the app's 'trust proxy' setting rather than trustedProxies.
    clientAddress: settings.clientAddress(req.socket.remoteAddress ?? '', headers['x-forwarded-for']),
    // Express's per-request state, so the app's own middleware can hand values to dependencies.
    state: res.locals,
  });
}

/** The body by content type, or what an app-wide parser already read. */
async function bodyOf(
  req: Request,
  settings: Pick<AdapterSettings, 'bodyLimit' | 'maxBodyValues'>,
): Promise<{ body: unknown; files: UploadedFile[] }> {
  // An app-wide parser (express.json()) already read the stream: keep what it found.
  if (req.readableEnded) return { body: checkJsonDepth(req.body, settings.maxBodyValues), files: [] };
  return readBodyByType(req, (types) => Boolean(req.is(types)), settings);
}

// Express 5 gives a `*wildcard` parameter as its list of segments.
function flatParams(params: Record<string, string | string[]>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) result[name] = Array.isArray(value) ? value.join('/') : value;
  return result;
}
