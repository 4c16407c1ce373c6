import type { IncomingMessage } from 'node:http';
import coBody from 'co-body';
import { textProblem } from '../../text';
import { BadRequestError, HttpError, PayloadTooLargeError, ValidationError } from '../../errors/http-error';
import type { UploadedFile } from '../../http/neutral';
import { readMultipart } from './read-multipart';

/** Deeper JSON is refused: it only serves to make validators recurse. */
const MAX_JSON_DEPTH = 64;

/** The default of `maxBodyValues`: far above any real form, far below what stalls validation. */
export const DEFAULT_MAX_BODY_VALUES = 10_000;

/**
 * The body readers every adapter shares, one per content type, each within `limit` bytes
 * (co-body for JSON and forms, busboy for multipart), so every adapter parses the same
 * bytes the same way. An empty body gives `undefined`. Failures are HttpErrors.
 */
export const readBody = {
  /** A JSON body (any JSON value; deeper than 64 levels is 400, more than `maxValues` values 413). */
  async json(req: IncomingMessage, limit: number, maxValues = DEFAULT_MAX_BODY_VALUES): Promise<unknown> {
    const body: unknown = await guard(req, limit, () => coBody.json(req, { limit, strict: false }));
    if (body === '') return undefined;
    return checkJsonDepth(body, maxValues);
  },

  /** A urlencoded form, parsed flat like the query string (a repeated name gives an array). */
  async form(
    req: IncomingMessage,
    limit: number,
    maxValues = DEFAULT_MAX_BODY_VALUES,
  ): Promise<Record<string, string | string[]> | undefined> {
    const text = await guard(req, limit, () => coBody.text(req, { limit }));
    return text === '' ? undefined : checkFields(groupEntries(new URLSearchParams(text)), maxValues);
  },

  /** A multipart/form-data body: its fields as a record, and its files. */
  async multipart(
    req: IncomingMessage,
    limit: number,
    maxValues = DEFAULT_MAX_BODY_VALUES,
  ): Promise<{ body: Record<string, string | string[]>; files: UploadedFile[] }> {
    const { fields, files } = await guard(req, limit, () => readMultipart(req, limit));
    return { body: checkFields(groupEntries(fields), maxValues), files };
  },
};

/** Whether the request's Content-Type is one of `types` (type-is names: `json`, `+json`, `urlencoded`...). */
export type TypeTest = (types: string[]) => boolean;

/** The limits a body is read within: bytes, and values (keys and array items). */
export interface BodyLimits {
  bodyLimit: number;
  maxBodyValues: number;
}

/**
 * Reads `raw`'s body with the reader its Content-Type names (JSON, multipart, urlencoded),
 * asking the framework's own type test `is`; any other type, or none, stays unread.
 */
export async function readBodyByType(
  raw: IncomingMessage,
  is: TypeTest,
  { bodyLimit: limit, maxBodyValues: values }: BodyLimits,
): Promise<{ body: unknown; files: UploadedFile[] }> {
  // Without a Content-Type no reader applies (most GETs): skip the three look-ups.
  if (raw.headers['content-type'] === undefined) return { body: undefined, files: [] };
  // JSON first: it is most bodies, and each look-up parses the Content-Type again.
  if (is(['json', '+json'])) return { body: await readBody.json(raw, limit, values), files: [] };
  if (is(['multipart/form-data'])) return readBody.multipart(raw, limit, values);
  if (is(['urlencoded'])) return { body: await readBody.form(raw, limit, values), files: [] };
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

/**
 * Refuses JSON nested deeper than 64 levels (400), JSON holding more than `maxValues`
 * values (413), and a key or string no engine can store (NUL, a lone surrogate: 422
 * naming where). Ours and a parser other than ours (express.json()) both answer through
 * it, so every route sees the same rule.
 */
export function checkJsonDepth(body: unknown, maxValues = DEFAULT_MAX_BODY_VALUES): unknown {
  checkShape(body, maxValues);
  const where = badText(body, ['body']);
  if (where) throw ValidationError.of(where.loc, where.msg, where.type);
  return body;
}

function checkFields(fields: Record<string, string | string[]>, maxValues: number): Record<string, string | string[]> {
  let values = 0;
  for (const value of Object.values(fields)) values += Array.isArray(value) ? 1 + value.length : 1;
  if (values > maxValues) throw tooManyValues(maxValues);
  for (const [name, value] of Object.entries(fields)) {
    const where = badText(name, ['body']) ?? badText(value, ['body', name]);
    if (where) throw ValidationError.of(where.loc, where.msg, where.type);
  }
  return fields;
}

type TextFault = { loc: (string | number)[]; msg: string; type: string };

// Depth is checked first, so this walk is bounded by the 64 levels. The location is
// built on the way back, only for the fault.
function badText(value: unknown, loc: (string | number)[]): TextFault | undefined {
  const found = faultIn(value);
  if (found) found.loc.unshift(...loc);
  return found;
}

function faultIn(value: unknown): TextFault | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && { loc: [], ...problem };
  }
  if (value === null || typeof value !== 'object') return undefined;
  const array = Array.isArray(value);
  for (const key of Object.keys(value)) {
    const keyProblem = array ? undefined : textProblem(key);
    if (keyProblem) return { loc: [], ...keyProblem };
    const found = faultIn((value as Record<string, unknown>)[key]);
    if (found) {
      found.loc.unshift(array ? Number(key) : key);
      return found;
    }
  }
  return undefined;
}

async function guard<T>(req: IncomingMessage, limit: number, read: () => Promise<T>): Promise<T> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError();
  try {
    return await read();
  } catch (error) {
    throw toHttpError(error);
  }
}

// Validating a body costs time for every value in it (class-transformer copies each one,
// declared or not, at some microseconds apiece), so a 1 MiB body of tiny objects or arrays
// held the thread for a second or more. The values (keys and array items, at any depth)
// are counted here first, before any validation, and the walk stops at the first value
// past `maxValues`, so it stays cheap whatever the body. Depth is checked in the same walk.
function checkShape(body: unknown, maxValues: number): void {
  let values = 0;
  const walk = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object') return;
    if (depth > MAX_JSON_DEPTH) throw new BadRequestError(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Object.values(value)) {
      if (++values > maxValues) throw tooManyValues(maxValues);
      walk(child, depth + 1);
    }
  };
  walk(body, 1);
}

function tooManyValues(maxValues: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `Request body holds more than ${maxValues} values (keys and array items, counted at every depth)`,
  );
}

// co-body reports raw-body's errors (size, aborts, unknown encodings) with a status, JSON
// parse failures (including bourne's __proto__ refusal) as SyntaxError, and a body whose
// Content-Encoding does not match its bytes as a bare zlib error (code Z_DATA_ERROR, …, or
// for brotli ERR__ERROR_FORMAT_…): the client's fault, so a 400, never a 500.
function toHttpError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const { type, status, message, code } = error as { type?: string; status?: number; message?: string; code?: unknown };
  if (type === 'entity.too.large') return new PayloadTooLargeError();
  if (error instanceof SyntaxError) return new BadRequestError('Malformed JSON body');
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_FORMAT_')))
    return new BadRequestError('Body does not match its Content-Encoding');
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new HttpError(status, message ?? 'Bad request');
  return error;
}
