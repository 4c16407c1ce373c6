import type { Readable } from 'node:stream';
import { jsonTextOf } from '../../http/json-text';
import type { NeutralResult } from '../../http/neutral';

/** What goes on the wire for a neutral result: content type, body, and redirect target. */
export interface Payload {
  status: number;
  /** The Location to send, already encoded; undefined without a redirect. */
  location?: string;
  /** The content type to send when the result's headers name none; undefined for a status without a body. */
  defaultType?: string;
  body: string | Buffer | Readable;
}

/** Statuses that carry no body: Koa drops the body and its Content-Type for them. */
const EMPTY_STATUSES = new Set([204, 205, 304]);

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Decides status, body and content type the way @crudsmith/koa does (Koa's own rules),
 * so every adapter sends the same bytes. Throws when `json` cannot be encoded.
 */
export function toPayload(result: NeutralResult): Payload {
  // Every request builds one: plain objects rather than spreads of a shared base.
  const redirect = result.redirect === undefined ? undefined : redirectTarget(result.redirect);
  // A redirect keeps a 3xx status and uses 302 otherwise, as Koa's ctx.redirect() does.
  const status = redirect !== undefined && (result.status < 300 || result.status > 399) ? 302 : result.status;
  const location = redirect === undefined ? undefined : encodeUrl(redirect);
  if (EMPTY_STATUSES.has(status)) return { status, location, body: '' };
  // 'json' present, even as null, is JSON: the literal null, never an empty 204.
  if ('json' in result)
    return {
      status,
      location,
      defaultType: JSON_TYPE,
      body: jsonTextOf(result) ?? JSON.stringify(result.json) ?? 'null',
    };
  const { body } = result;
  if (typeof body === 'string')
    return {
      status,
      location,
      defaultType: /^\s*</.test(body) ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
      body,
    };
  if (body instanceof Uint8Array)
    return {
      status,
      location,
      defaultType: 'application/octet-stream',
      body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    };
  if (body !== undefined) return { status, location, defaultType: 'application/octet-stream', body };
  if (redirect !== undefined)
    return {
      status,
      location,
      defaultType: 'text/html; charset=utf-8',
      body: `Redirecting to ${escapeHtml(redirect)}.`,
    };
  return { status, location, defaultType: 'text/plain; charset=utf-8', body: '' };
}

/**
 * True when the payload is JSON in our own content type, with no cookie or redirect, and
 * headers of its own (an ETag) that name neither Content-Type nor Set-Cookie: most
 * answers, reads included, which an adapter may write the short way (its headers as they
 * are, then our Content-Type).
 */
export function isPlainJson(
  result: NeutralResult,
  payload: Payload,
): payload is Payload & { body: string; defaultType: string } {
  return (
    payload.defaultType === JSON_TYPE &&
    payload.location === undefined &&
    result.cookies === undefined &&
    (result.headers === undefined || namesNoTypeOrCookie(result.headers))
  );
}

function namesNoTypeOrCookie(headers: Record<string, unknown>): boolean {
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === 'content-type' || lower === 'set-cookie') return false;
  }
  return true;
}

/** True when `headers` name a Content-Type, in any case. */
export function hasContentType(headers: Record<string, unknown> | undefined): boolean {
  for (const name in headers) if (name.toLowerCase() === 'content-type') return true;
  return false;
}

// Koa normalises absolute http(s) URLs before encoding them, so that the Location cannot be
// read differently by a browser than by us.
function redirectTarget(url: string): string {
  return /^https?:\/\//i.test(url) ? new URL(url).toString() : url;
}

// encodeurl (MIT), as Koa and Express use it: encodes what a URL cannot hold, keeps valid %XX.
const ENCODE_CHARS = /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|$))+/g;
const LONE_SURROGATE = /(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g;

function encodeUrl(url: string): string {
  return url.replace(LONE_SURROGATE, '$1\uFFFD$2').replace(ENCODE_CHARS, encodeURI);
}

// escape-html's entities, as Koa's redirect body uses them.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
