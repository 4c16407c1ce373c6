import autocannon from 'autocannon';

// The load: autocannon in the bench's own process, against a server in another.

type Method = 'GET' | 'POST' | 'PATCH';

/** One kind of request; `next` gives each request's path and body (and method and headers, when they vary). */
export interface RequestKind {
  method: Method;
  next(): { path: string; body?: unknown; method?: Method; headers?: Record<string, string> };
  /** The status every answer must have when not a 2xx (a conditional read's 304). */
  status?: number;
}

/** What one load run measured. */
export interface LoadResult {
  rps: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Requests answered. */
  requests: number;
}

/** Concurrent connections (no pipelining): enough to keep a one-process server busy. */
export const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS) || 8;

/** How a load runs besides its length: a cap on requests, and how many connections (default CONNECTIONS). */
export interface LoadOptions {
  maxRequests?: number;
  connections?: number;
}

/**
 * Loads `port` with `kind` for `seconds` (or until `maxRequests` were answered, when given
 * and sooner); any non-2xx answer or error fails the run.
 */
export async function load(
  port: number,
  kind: RequestKind,
  seconds: number,
  { maxRequests, connections = CONNECTIONS }: LoadOptions = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    ...(maxRequests === undefined ? {} : { maxOverallRequests: maxRequests }),
    // The run ends at the first sample after `duration`: sample often so it ends on time.
    sampleInt: 50,
    requests: [
      {
        method: kind.method,
        setupRequest(request: any) {
          const { path, body, method, headers } = kind.next();
          request.path = path;
          if (method) request.method = method;
          if (headers) request.headers = { ...request.headers, ...headers };
          if (body !== undefined) {
            request.body = JSON.stringify(body);
            request.headers = { ...request.headers, 'content-type': 'application/json' };
          }
          return request;
        },
      },
    ],
  });
  const statuses = (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  const unexpected =
    kind.status === undefined
      ? result.non2xx
      : Object.entries(statuses).reduce(
          (sum, [code, { count }]) => sum + (code === String(kind.status) ? 0 : count),
          0,
        );
  if (result.errors > 0 || unexpected > 0 || result.timeouts > 0) {
    throw new Error(
      `${kind.method} on port ${port}: ${result.errors} errors, ${result.timeouts} timeouts, ${unexpected} answers other than ${kind.status ?? '2xx'}`,
    );
  }
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  return { rps: result.requests.total / elapsed, p99: result.latency.p99, requests: result.requests.total };
}
