import type { CallOptions, HttpClient } from './http';
import type { CreateOptions, WriteOptions } from './types';

// A custom route of the document as one typed function: path parameters, then the body,
// then options (the query among them), answering the route's 2xx schema.

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

/** One custom operation of the document as a function; `shape` says whether it takes path parameters and a body. */
export function operation<S extends OperationSpec>(
  http: HttpClient,
  method: string,
  path: string,
  shape: { params?: true; body?: true } = {},
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
      json: body,
      ...writeHeaders(options),
    });
  };
}
