import type { Response } from 'express';
import { pipeline } from 'node:stream';
import { serialize } from 'cookie';
import type { ErrorLogger, NeutralResult } from '@crudsmith/core';
import { hasContentType, isPlainJson, toPayload } from '@crudsmith/core/adapter';

/** Writes a neutral result (status, headers, cookies, redirect, body) onto the Express response. */
export function writeResult(res: Response, result: NeutralResult, logger: ErrorLogger): void {
  // Serialise before touching res, so a value that cannot be encoded leaves nothing half-written.
  const payload = toPayload(result);
  // Most answers are JSON with no cookie, and at most plain headers of their own (a read's ETag).
  if (isPlainJson(result, payload)) {
    res.statusCode = payload.status;
    const { headers } = result;
    if (headers) for (const name in headers) res.setHeader(name, headers[name]);
    res.setHeader('Content-Type', payload.defaultType);
    res.setHeader('Content-Length', Buffer.byteLength(payload.body));
    res.end(payload.body);
    return;
  }
  const cookies = (result.cookies ?? []).map((cookie) => serialize(cookie));

  // Raw Node calls rather than res.send(): no ETag, no 304, no type guessing, as on Koa.
  res.statusCode = payload.status;
  if (payload.location !== undefined) res.setHeader('Location', payload.location);
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (name.toLowerCase() === 'set-cookie') res.appendHeader(name, value);
    else res.setHeader(name, value);
  }
  for (const cookie of cookies) res.appendHeader('Set-Cookie', cookie);
  if (payload.defaultType === undefined) res.removeHeader('Content-Type');
  else if (!hasContentType(result.headers)) res.setHeader('Content-Type', payload.defaultType);

  const { body } = payload;
  if (payload.defaultType === undefined) {
    res.end();
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  pipeline(body, res, (error) => {
    // A client that went away is not a server error.
    if (error && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      logger.error('Response stream failed', error);
  });
}
