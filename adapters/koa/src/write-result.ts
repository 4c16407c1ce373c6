import type { Context } from 'koa';
import { serialize } from 'cookie';
import type { NeutralResult } from '@crudsmith/core';
import { hasContentType, toPayload } from '@crudsmith/core/adapter';

/** Writes a neutral result (status, headers, cookies, redirect, body) onto the Koa context. */
export function writeResult(ctx: Context, result: NeutralResult): void {
  // Serialise before touching ctx, so a value that cannot be encoded leaves nothing half-written.
  const payload = toPayload(result);
  const { headers, cookies } = result;
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
  ctx.body = payload.body;
}
