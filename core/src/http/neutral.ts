import type { Readable } from 'node:stream';

/** HTTP methods a route descriptor can answer. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** A file part of a multipart body. */
export interface UploadedFile {
  field: string;
  /** The name the client sent; never trust it as a path. */
  filename: string;
  contentType: string;
  size: number;
  data: Buffer;
}

/**
 * A dependency: a function of the request, resolved at most once per request (its result
 * is cached on the request), that may resolve other dependencies through `req.resolve`.
 */
export type Dependency<T = unknown> = (req: NeutralRequest) => T | Promise<T>;

/** The framework-neutral request every adapter builds and every handler reads. */
export interface NeutralRequest {
  method: HttpMethod;
  /** The decoded path, without the query string. */
  path: string;
  /** Decoded route parameters (`:id` → `params.id`). */
  params: Record<string, string>;
  /** Query parameters; a repeated key gives an array. */
  query: Record<string, string | string[]>;
  /** Request headers, names in lower case. */
  headers: Record<string, string | undefined>;
  cookies: Record<string, string>;
  /** Parsed JSON or form body; undefined when the request had none. */
  body: unknown;
  files: UploadedFile[];
  /** The client's address: the socket's, or the trusted proxy hop. */
  clientAddress: string;
  /** Per-request state shared by dependencies, hooks and the handler. */
  state: Record<string, unknown>;
  /** Resolves a dependency once for this request. */
  resolve<T>(dependency: Dependency<T>): Promise<T>;
}

/** One `Set-Cookie` to send. */
export interface CookieToSet {
  name: string;
  value: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  path?: string;
  maxAge?: number;
  expires?: Date;
}

/**
 * The framework-neutral result. `json` (when the key is present, even as null) is sent
 * as JSON; otherwise `body` is sent as is (text/HTML with its content type, bytes or a
 * stream). `redirect` answers 302 (or `status` when 3xx) with a Location.
 */
export interface NeutralResult {
  status: number;
  headers?: Record<string, string | string[]>;
  cookies?: CookieToSet[];
  json?: unknown;
  body?: string | Uint8Array | Readable;
  redirect?: string;
}

/** The input an adapter gathers before core builds a NeutralRequest from it. */
export type RequestInit = Omit<NeutralRequest, 'resolve' | 'state' | 'files' | 'cookies' | 'params'> &
  Partial<Pick<NeutralRequest, 'state' | 'files' | 'cookies' | 'params'>>;

/** Builds a NeutralRequest whose `resolve` caches each dependency's result for the request. */
export function createRequest(init: RequestInit): NeutralRequest {
  // Most requests resolve no dependency: the cache is made on first use.
  let cache: Map<Dependency<any>, Promise<any>> | undefined;
  const req: NeutralRequest = {
    method: init.method,
    path: init.path,
    params: init.params ?? {},
    query: init.query,
    headers: init.headers,
    cookies: init.cookies ?? {},
    body: init.body,
    files: init.files ?? [],
    clientAddress: init.clientAddress,
    state: init.state ?? {},
    resolve<T>(dependency: Dependency<T>): Promise<T> {
      cache ??= new Map();
      let pending = cache.get(dependency);
      if (!pending) {
        pending = Promise.resolve().then(() => dependency(req));
        cache.set(dependency, pending);
      }
      return pending;
    },
  };
  return req;
}
