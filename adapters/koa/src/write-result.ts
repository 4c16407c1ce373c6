import type { Context } from 'koa';
import { serialize } from 'cookie';
import type { NeutralResult } from '@crudsmith/core';

/** Writes a neutral result (status, headers, cookies, redirect, body) onto the Koa context. */
export function writeResult(ctx: Context, result: NeutralResult): void {
  // Serialise before touching ctx, so a value that cannot be encoded leaves nothing half-written.
  const json = 'json' in result ? (JSON.stringify(result.json) ?? 'null') : undefined;
  const { headers, cookies } = result;
  const serialized = cookies && cookies.length > 0 ? cookies.map((cookie) => serialize(cookie)) : undefined;

  ctx.status = result.status;
  // Koa keeps a 3xx status already set and uses 302 otherwise.
  if (result.redirect !== undefined) ctx.redirect(result.redirect);
  let typed = false;
  if (headers) {
    for (const name in headers) {
      const lower = name.toLowerCase();
      if (lower === 'set-cookie') ctx.append(name, headers[name]);
      else ctx.set(name, headers[name]);
      if (lower === 'content-type') typed = true;
    }
  }
  if (serialized) for (const cookie of serialized) ctx.append('Set-Cookie', cookie);

  if (json !== undefined) {
    // Always a string: Koa would answer 204 for a null body and send a JSON string as text.
    if (!typed) ctx.type = 'application/json; charset=utf-8';
    ctx.body = json;
  } else if (result.body !== undefined) {
    const { body } = result;
    // A Uint8Array that is not a Buffer would be sent by Koa as JSON.
    ctx.body =
      body instanceof Uint8Array && !Buffer.isBuffer(body)
        ? Buffer.from(body.buffer, body.byteOffset, body.byteLength)
        : body;
  } else if (result.redirect === undefined) {
    ctx.body = '';
  }
}
