import { errorFor, retryAfterSeconds, TimeoutError } from './errors';
import type { Auth } from './auth';

/** What every client takes. */
export interface ClientOptions {
  /** Where the app is served: `https://api.example.com` (paths of the document are appended). */
  baseUrl: string;
  /** Headers sent with every request (a function is called per request). */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Milliseconds before a request fails with `TimeoutError` (default: none). */
  timeout?: number;
  /** Aborts every request of this client. */
  signal?: AbortSignal;
  /**
   * Retries of idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) answered 503,
   * after the answer's `Retry-After` (default 2 retries, waiting at most 30 s each); false: none.
   */
  retry?: { retries?: number; maxDelaySeconds?: number } | false;
  /** How requests authenticate: `bearerAuth()` or `sessionAuth()`. */
  auth?: Auth;
}

/** Per-call options of every operation. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  timeout?: number;
}

/** One request, before it is sent. */
export interface RequestSpec extends CallOptions {
  method: string;
  path: string;
  query?: URLSearchParams;
  json?: unknown;
  /** A multipart body (fetch writes its Content-Type with the boundary); sent instead of `json`. */
  form?: FormData;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** The transport under every generated client: URL, headers, auth, timeout, retries, typed errors. */
export class HttpClient {
  private readonly fetchImpl: typeof fetch;
  readonly auth: Auth | undefined;

  constructor(readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.auth = options.auth;
    this.auth?.attach?.(this);
  }

  /** Sends the request and answers its parsed JSON body (null when empty); a non-2xx answer throws its typed error. */
  async request<T>(spec: RequestSpec): Promise<T> {
    return (await readBody(await this.response(spec))) as T;
  }

  /** Sends the request and answers the 2xx `Response` unread (for streams and text); a non-2xx answer throws its typed error. */
  async response(spec: RequestSpec): Promise<Response> {
    const retries = this.options.retry === false ? 0 : (this.options.retry?.retries ?? 2);
    const maxDelay = (this.options.retry !== false && this.options.retry?.maxDelaySeconds) || 30;
    let recovered = false;
    for (let attempt = 0; ; attempt++) {
      const headers = this.headersFor(spec);
      await this.auth?.apply(spec.method, headers);
      const response = await this.send(spec, headers);
      this.auth?.receive?.(response);
      if (response.ok) return response;
      if (!recovered && this.auth?.recover) {
        const body = await readBody(response.clone());
        if (await this.auth.recover(response.status, body, spec.method, headers)) {
          recovered = true;
          attempt--;
          continue;
        }
      }
      const wait = retryAfterSeconds(response.headers.get('retry-after')) ?? 1;
      if (response.status === 503 && IDEMPOTENT.has(spec.method) && attempt < retries && wait <= maxDelay) {
        await response.body?.cancel();
        await delay(wait * 1000, spec.signal ?? this.options.signal);
        continue;
      }
      throw errorFor(response.status, await readBody(response), response.headers);
    }
  }

  /** One fetch with the timeout and signals applied, without auth or retries (the auth's own calls use it). */
  async send(spec: RequestSpec, headers: Headers = this.headersFor(spec)): Promise<Response> {
    const url = new URL(spec.path.replace(/^\/*/, ''), this.options.baseUrl.replace(/\/*$/, '/'));
    if (spec.query) url.search = spec.query.toString();
    const timeout = spec.timeout ?? this.options.timeout;
    const signals = [spec.signal, this.options.signal].filter((s): s is AbortSignal => s !== undefined);
    if (timeout !== undefined) signals.push(AbortSignal.timeout(timeout));
    try {
      return await this.fetchImpl(url, {
        method: spec.method,
        headers,
        body: spec.form ?? (spec.json === undefined ? undefined : JSON.stringify(spec.json)),
        signal: signals.length ? AbortSignal.any(signals) : undefined,
        credentials: this.auth?.credentials ?? 'same-origin',
      });
    } catch (error) {
      if (timeout !== undefined && error instanceof Error && error.name === 'TimeoutError')
        throw new TimeoutError(timeout);
      throw error;
    }
  }

  private headersFor(spec: RequestSpec): Headers {
    const own = typeof this.options.headers === 'function' ? this.options.headers() : this.options.headers;
    const headers = new Headers({ accept: 'application/json', ...own, ...spec.headers });
    if (spec.json !== undefined) headers.set('content-type', 'application/json');
    return headers;
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}
