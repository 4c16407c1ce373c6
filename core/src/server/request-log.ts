import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { HttpError } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { ErrorLogger } from '../http/render-error';
import type { Plugin } from '../plugin/plugin';
import { newRequestId, requestIdFrom } from './request-id';
import type { StructuredLogger } from './structured-logger';

/** What `requestLog` takes. */
export interface RequestLogOptions {
  /** Where the lines go: a pino logger, or anything with `info`, `warn` and `error` taking fields then a message. */
  logger: StructuredLogger;
}

/** The request log: a plugin for `bootstrap` and the node server to attach it to. */
export interface RequestLog {
  /** Tells the log which route pattern answered and what it threw; pass it to `bootstrap({ plugins })`. */
  plugin: Plugin;
  /**
   * Logs every request the server answers and echoes its id as `X-Request-Id`: call once
   * on the node `http.Server`, before it serves (Koa's and Express's `listen()` result,
   * Fastify's `app.server`).
   */
  attach(server: Server): void;
  /**
   * Where bootstrap and the adapters report errors no route expected (pass it as their
   * `logger`): the error becomes the `err` of its request's line, so its stack is written
   * once, with the request's id; one no request in flight owns gets a line of its own.
   */
  errors: ErrorLogger;
}

/** The header a request id comes in and goes back out as. */
export const REQUEST_ID_HEADER = 'x-request-id';

// What the route hooks and the error reports learn about a request the server listener is timing.
interface Entry {
  route?: string;
  /** What the route threw, expected or not. */
  error?: unknown;
  /** An error reported as unexpected (through `errors`), wherever it was caught. */
  unexpected?: unknown;
}

/**
 * One structured line per request: method, route pattern (never the raw path, which may
 * carry ids or tokens), status, duration and request id, at `info`; `warn` for 4xx,
 * aborted requests and a 5xx other than 500 that no unexpected error caused (an outage's
 * 503: the outage itself is logged once a period, a stack per request would flood the
 * log); `error`, with the error as `err`, for 500s and every unexpected error. No header,
 * query or body is ever logged, so no password, token or cookie can reach the log.
 *
 * The line is written by a listener on the node server, so every answer has one and
 * carries the id, on every adapter, 404s and the framework's own errors included; the
 * plugin's hooks add the route pattern and the error of the routes bootstrap wraps.
 */
export function requestLog(options: RequestLogOptions): RequestLog {
  const { logger } = options;
  // Keyed by id: the listener rewrites the request's X-Request-Id header, which is how a
  // hook, seeing only the neutral request, finds its entry.
  const inFlight = new Map<string, Entry>();
  const entryOf = (headers: Record<string, string | undefined>) => inFlight.get(headers[REQUEST_ID_HEADER] ?? '');

  const plugin: Plugin = {
    name: 'request-log',
    hooks: {
      onError(req, _route, error) {
        const entry = entryOf(req.headers);
        if (entry) entry.error = error;
      },
      // After hooks run for every wrapped route, even when a before hook answered early.
      after(req, route) {
        const entry = entryOf(req.headers);
        if (entry) entry.route = route.path;
      },
    },
  };

  function track(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    let id = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    // Two requests in flight under one client-chosen id would share an entry: the second gets its own.
    if (inFlight.has(id)) id = newRequestId();
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader('X-Request-Id', id);
    keepHeader(res, 'X-Request-Id', id);
    const entry: Entry = {};
    inFlight.set(id, entry);
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      inFlight.delete(id);
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const aborted = !res.writableFinished;
      // A connection that closed before any answer has no status to report.
      const status = res.headersSent ? res.statusCode : null;
      const fields: Record<string, unknown> = {
        requestId: id,
        method: req.method,
        route: entry.route ?? null,
        status,
        durationMs,
      };
      if (aborted) fields.aborted = true;
      const unexpected = entry.unexpected ?? (isUnexpected(entry.error) ? entry.error : undefined);
      if (unexpected !== undefined || status === 500) {
        const err = unexpected ?? entry.error;
        if (err !== undefined) fields.err = err;
        logger.error(fields, 'request');
      } else if (status === null || status >= 400 || aborted) logger.warn(fields, 'request');
      else logger.info(fields, 'request');
    };
    res.once('finish', done);
    res.once('close', done);
  }

  const errors: ErrorLogger = {
    error(message, error, context) {
      const entry = context?.requestId === undefined ? undefined : inFlight.get(context.requestId);
      if (entry) entry.unexpected ??= error;
      else logger.error({ requestId: context?.requestId ?? null, err: error }, message);
    },
    warn: (message) => logger.warn({}, message),
  };

  return {
    plugin,
    errors,
    // Before the framework's own listener, so the id is in place when it reads the headers.
    attach: (server) => void server.prependListener('request', track),
  };
}

// Koa's default error handler removes every header before it answers: put the id back
// just before the head goes out. Node sends every head through writeHead, implicit ones too.
function keepHeader(res: ServerResponse, name: string, value: string): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!this.hasHeader(name)) this.setHeader(name, value);
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

// An error that no HttpError (or mapped driver failure) accounts for: a fault, not an answer.
function isUnexpected(error: unknown): boolean {
  return error !== undefined && !(error instanceof HttpError) && mapDatabaseError(error) === undefined;
}
