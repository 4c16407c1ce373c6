import type { FastifyReply } from 'fastify';
import { serialize } from 'cookie';
import type { ErrorLogger, NeutralResult } from '@crudsmith/core';
import { hasContentType, isPlainJson, toPayload } from '@crudsmith/core/adapter';

/**
 * Writes a neutral result (status, headers, cookies, redirect, body) onto the Fastify
 * reply; a body stream that fails is reported to `logger`, as Express's adapter does
 * (Fastify tells only its own logger, which is off by default).
 */
export function writeResult(reply: FastifyReply, result: NeutralResult, logger?: ErrorLogger): FastifyReply {
  // Serialise before touching the reply, so a value that cannot be encoded leaves nothing half-written.
  const payload = toPayload(result);
  // Most answers are JSON with no cookie, and at most plain headers of their own (a read's
  // ETag): the type is ours, and names its charset.
  if (isPlainJson(result, payload)) {
    reply.code(payload.status);
    const { headers } = result;
    if (headers) for (const name in headers) reply.header(name, headers[name]);
    return reply.header('content-type', payload.defaultType).send(payload.body);
  }
  const cookies = (result.cookies ?? []).map((cookie) => serialize(cookie));

  reply.code(payload.status);
  if (payload.location !== undefined) reply.header('location', payload.location);
  // reply.header() appends to Set-Cookie and replaces any other header.
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
  for (const cookie of cookies) reply.header('set-cookie', cookie);
  if (payload.defaultType === undefined) return reply.removeHeader('content-type').send();
  if (!hasContentType(result.headers)) reply.type(payload.defaultType);
  // Bytes, not a string, unless the type already names its charset (our JSON default):
  // Fastify would add a charset to a JSON type, or a type to plain text.
  const { body } = payload;
  if (typeof body !== 'string') {
    if (logger && !Buffer.isBuffer(body)) {
      body.once('error', (error: NodeJS.ErrnoException) => {
        // A client that went away is not a server error.
        if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error('Response stream failed', error);
      });
    }
    return reply.send(body);
  }
  return reply.send(charsetNamed(reply.getHeader('content-type')) ? body : Buffer.from(body));
}

function charsetNamed(type: unknown): boolean {
  return typeof type === 'string' && /;\s*charset=/i.test(type);
}
