import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { serialize } from 'cookie';
import type { NeutralResult } from '@crudsmith/core';
import { hasContentType, isPlainJson, toPayload } from '@crudsmith/core/adapter';

/** Writes a neutral result (status, headers, cookies, redirect, body) onto the Koa context. */
export function writeResult(ctx: Context, result: NeutralResult): void {
  // Serialise before touching ctx, so a value that cannot be encoded leaves nothing half-written.
  const payload = toPayload(result);
  const { headers, cookies } = result;
  // Most answers are JSON with no cookie, and at most plain headers of their own (a read's
  // ETag): our type names its charset, so it is set as it is, without Koa's type lookup.
  if (isPlainJson(result, payload)) {
    ctx.status = payload.status;
    if (headers) for (const name in headers) ctx.set(name, headers[name]);
    ctx.set('Content-Type', payload.defaultType);
    ctx.body = payload.body;
    return;
  }
  const serialized = cookies && cookies.length > 0 ? cookies.map((cookie) => serialize(cookie)) : undefined;

  ctx.status = payload.status;
  if (payload.location !== undefined) ctx.set('Location', payload.location);
  if (headers) {
    for (const name in headers) {
      if (name.toLowerCase() === 'set-cookie') ctx.append(name, headers[name]);
      else ctx.set(name, headers[name]);
    }
  }
  if (serialized) for (const cookie of serialized) ctx.append('Set-Cookie', cookie);

  // A status without a body: Koa drops the body and its Content-Type itself.
  if (payload.defaultType === undefined) {
    ctx.body = '';
    return;
  }
  // Typed first, so Koa does not guess (it would answer 204 for a null body and send a JSON string as text).
  if (!hasContentType(headers)) ctx.type = payload.defaultType;
  if (typeof payload.body !== 'string' && !Buffer.isBuffer(payload.body)) quietOnDisconnect(ctx, payload.body);
  ctx.body = payload.body;
}

/** What a connection the client closed or reset reports: the pipe cut short, or the socket's own error. */
const DISCONNECT_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/**
 * Koa pipes a streamed body and reports whatever ends the pipe, and any error of the
 * socket, to the app's `error` event (which logs it): a client that goes away mid-stream
 * (an export it stopped) is not an error, as the other adapters treat it. An error of the
 * body stream itself (a database connection reset under an export) is still reported.
 */
function quietOnDisconnect(ctx: Context, body: Readable): void {
  let failure: unknown;
  body.once('error', (error) => void (failure ??= error));
  const report = ctx.onerror;
  ctx.onerror = function (this: Context, error: unknown) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (error !== failure && code !== undefined && DISCONNECT_CODES.has(code)) return;
    return report.call(this, error as Error);
  };
}
