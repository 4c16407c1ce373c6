import type { Request } from 'express';
import coBody from 'co-body';
import { BadRequestError, HttpError, PayloadTooLargeError, type UploadedFile } from '@crudsmith/core';
import { readMultipart } from './read-multipart';

/** Deeper JSON is refused (DESIGN §8): it only serves to make validators recurse. */
const MAX_JSON_DEPTH = 64;

/** The parsed body of a request and its uploaded files. */
export interface ParsedBody {
  body: unknown;
  files: UploadedFile[];
}

/**
 * Parses a JSON, urlencoded or multipart body within `limit` bytes, as @crudsmith/koa
 * does. A request without a body, or with a type we do not parse, gives `undefined`.
 * Failures are HttpErrors.
 */
export async function readBody(req: Request, limit: number): Promise<ParsedBody> {
  // An app-wide parser (express.json()) already read the stream: keep what it found.
  if (req.readableEnded) return { body: checkDepth(req.body), files: [] };
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError();
  try {
    // req.is() answers null when the request has no body at all.
    if (req.is('multipart/form-data')) {
      const { fields, files } = await readMultipart(req, limit);
      return { body: groupEntries(fields), files };
    }
    if (req.is(['json', '+json'])) {
      const body: unknown = await coBody.json(req, { limit, strict: false });
      return { body: body === '' ? undefined : checkDepth(body), files: [] };
    }
    if (req.is('urlencoded')) {
      // Parsed flat, like the query string, so every adapter reads a form the same way.
      const text = await coBody.text(req, { limit });
      return { body: text === '' ? undefined : groupEntries(new URLSearchParams(text)), files: [] };
    }
  } catch (error) {
    throw toHttpError(error);
  }
  return { body: undefined, files: [] };
}

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

function checkDepth(body: unknown): unknown {
  if (tooDeep(body, 1)) throw new BadRequestError(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
  return body;
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
