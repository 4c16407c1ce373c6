import type { CallOptions, HttpClient } from './http';
import type { CreateOptions, WriteOptions } from './types';

// A custom route of the document as one typed function: path parameters, then the body,
// then options (the query among them), answering the route's 2xx schema. A
// `multipart/form-data` route's body is an object of parts (or a `FormData`), sent as `FormData`.

/** What the generator declares for one custom operation; `params`, `query` and `body` only when it has them. */
export interface OperationSpec {
  params?: Record<string, string | number>;
  query?: object;
  body?: unknown;
  answer: unknown;
}

/** Per-call options of a custom operation: its query, and the write headers. */
export type OperationOptions<S extends OperationSpec> = CallOptions &
  WriteOptions &
  Pick<CreateOptions, 'idempotencyKey'> &
  (S extends { query: infer Q } ? { query?: Q } : { query?: never });

/** The arguments of a custom operation, in order. */
export type OperationArgs<S extends OperationSpec> = [
  ...(S extends { params: infer P } ? [params: P] : []),
  ...(S extends { body: infer B } ? [body: B] : []),
  options?: OperationOptions<S>,
];

/** The request headers of the write options. */
export function writeHeaders(options: CallOptions & WriteOptions & CreateOptions = {}): CallOptions {
  const { ifMatch, prefer, idempotencyKey, ...rest } = options;
  const headers: Record<string, string> = { ...rest.headers };
  if (ifMatch !== undefined) headers['if-match'] = ifMatch;
  if (prefer !== undefined) headers.prefer = prefer;
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return { ...rest, headers };
}

/** Fills a path's `{name}` parameters from a scalar (every parameter) or an object of them. */
export function fillPath(path: string, params: string | number | Record<string, string | number>): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) =>
    encodeURIComponent(String(typeof params === 'object' ? params[name] : params)),
  );
}

/** A query object as the server reads it: arrays comma-separated, dates ISO 8601, undefined left out. */
function queryString(query: object | undefined): URLSearchParams | undefined {
  if (!query) return undefined;
  const params = new URLSearchParams();
  const text = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
  for (const [key, value] of Object.entries(query) as [string, unknown][])
    if (value !== undefined) params.set(key, Array.isArray(value) ? value.map(text).join(',') : text(value));
  return params;
}

/**
 * A body of parts as `FormData`: a `Blob` (a `File` keeps its name) as a file part, an array
 * as one part per item, an object as JSON text, any other value as its text; undefined and
 * null parts are left out. A `FormData` is sent as it is.
 */
export function toFormData(parts: unknown): FormData {
  if (parts instanceof FormData) return parts;
  const form = new FormData();
  for (const [name, value] of Object.entries((parts ?? {}) as Record<string, unknown>)) {
    for (const part of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (part === undefined || part === null) continue;
      if (part instanceof Blob) form.append(name, part);
      else form.append(name, typeof part === 'object' ? JSON.stringify(part) : String(part as string | number));
    }
  }
  return form;
}

/** One custom operation of the document as a function; `shape` says whether it takes path parameters and a body, and whether the body is a form. */
export function operation<S extends OperationSpec>(
  http: HttpClient,
  method: string,
  path: string,
  shape: { params?: true; body?: true; form?: true } = {},
): (...args: OperationArgs<S>) => Promise<S['answer']> {
  return (...args) => {
    const list = [...args] as unknown[];
    const params = shape.params ? (list.shift() as Record<string, string | number>) : {};
    const body = shape.body ? list.shift() : undefined;
    const { query, ...options } = (list.shift() ?? {}) as OperationOptions<OperationSpec> & { query?: object };
    return http.request({
      method,
      path: fillPath(path, params),
      query: queryString(query),
      ...(shape.form ? { form: toFormData(body) } : { json: body }),
      ...writeHeaders(options),
    });
  };
}
