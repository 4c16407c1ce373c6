import type { IncomingMessage } from 'node:http';
import coBody from 'co-body';
import { BadRequestError, HttpError, PayloadTooLargeError, type UploadedFile } from '@crudsmith/core';
import { readMultipart } from './read-multipart';

/** Deeper JSON is refused (DESIGN §8): it only serves to make validators recurse. */
const MAX_JSON_DEPTH = 64;

/**
 * Body readers, one per content type, each within `limit` bytes and reading the request as
 * @crudsmith/koa does (co-body, busboy), so every adapter parses the same bytes the same
 * way. An empty body gives `undefined`. Failures are HttpErrors.
 */
export const readBody = {
  async json(req: IncomingMessage, limit: number): Promise<unknown> {
    const body: unknown = await guard(req, limit, () => coBody.json(req, { limit, strict: false }));
    if (body === '') return undefined;
    if (tooDeep(body, 1)) throw new BadRequestError(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
    return body;
  },

  async form(req: IncomingMessage, limit: number): Promise<unknown> {
    // Parsed flat, like the query string, so every adapter reads a form the same way.
    const text = await guard(req, limit, () => coBody.text(req, { limit }));
    return text === '' ? undefined : groupEntries(new URLSearchParams(text));
  },

  async multipart(req: IncomingMessage, limit: number): Promise<{ body: unknown; files: UploadedFile[] }> {
    const { fields, files } = await guard(req, limit, () => readMultipart(req, limit));
    return { body: groupEntries(fields), files };
  },
};

/** Groups name/value pairs into a record; a repeated name gives an array, in order. */
export function groupEntries(entries: Iterable<[string, string]>): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of entries) {
    const seen = record[name];
    if (seen === undefined) record[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else record[name] = [seen, value];
  }
  return { ...record };
}

async function guard<T>(req: IncomingMessage, limit: number, read: () => Promise<T>): Promise<T> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError();
  try {
    return await read();
  } catch (error) {
    throw toHttpError(error);
  }
}

function tooDeep(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_JSON_DEPTH) return true;
  for (const child of Object.values(value)) if (tooDeep(child, depth + 1)) return true;
  return false;
}

// co-body reports raw-body's errors (size, aborts, encodings) with a status, and JSON
// parse failures (including bourne's __proto__ refusal) as SyntaxError.
function toHttpError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const { type, status, message } = error as { type?: string; status?: number; message?: string };
  if (type === 'entity.too.large') return new PayloadTooLargeError();
  if (error instanceof SyntaxError) return new BadRequestError('Malformed JSON body');
  if (typeof status === 'number' && status >= 400 && status < 500) return new HttpError(status, message ?? 'Bad request');
  return error;
}
