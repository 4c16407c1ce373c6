import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors/configuration-error';
import { ShutdownState } from './shutdown-state';
import type { StructuredLogger } from './structured-logger';

/** Something to release once requests have drained (a pool, a client, the app's plugins). */
export type Closer = () => unknown;

/** What `gracefulShutdown` takes; every field is optional. */
export interface GracefulShutdownOptions {
  /**
   * How long the server keeps accepting and serving after the first signal, with `/readyz`
   * already answering 503, before it stops accepting (default 0): the time a load balancer
   * needs to notice and stop sending, so no client meets a refused connection.
   */
  preStopDelayMs?: number;
  /** Longest wait for in-flight requests, once the server stopped accepting, before the remaining connections are cut (default 10 000 ms). */
  timeoutMs?: number;
  /** What to release after the drain, in this order, by name (`{ plugins: () => app.close(), database: () => knex.destroy() }`). */
  close?: Record<string, Closer>;
  /** Longest wait for each closer (default 5000 ms); one that fails or takes longer makes the exit code 1. */
  closeTimeoutMs?: number;
  /** Flipped at the first signal, so `/readyz` built with it answers 503 while draining. */
  state?: ShutdownState;
  /** Signals that start the shutdown (default SIGTERM and SIGINT); a second one exits at once. */
  signals?: NodeJS.Signals[];
  /** Where the shutdown says what it does (a pino logger fits); silent by default. */
  logger?: StructuredLogger;
  /** Ends the process with a code (default `process.exit`); tests pass their own. */
  exit?: (code: number) => void;
}

/** A shutdown installed on a server. */
export interface GracefulShutdown {
  /** Drains and closes as the first signal does, without exiting; resolves with the exit code (0 when all closed). */
  shutdown(): Promise<number>;
  /** Removes the signal listeners. */
  dispose(): void;
}

type Outcome = 'ok' | 'failed' | 'timeout';

/**
 * Installs a graceful shutdown on a node `http.Server` (any adapter's): at the first
 * SIGTERM or SIGINT it reports not-ready, keeps serving for `preStopDelayMs` while a load
 * balancer notices, then stops accepting connections, lets in-flight
 * requests finish until `timeoutMs`, then cuts every connection still open (a client
 * holding a half-sent request or an idle keep-alive connection cannot keep the process
 * alive), runs the closers in order and exits 0 (1 when a closer failed). A second signal
 * exits 1 at once. Install it before the server serves: it marks the answers of the
 * requests it saw arrive.
 */
export function gracefulShutdown(server: Server, options: GracefulShutdownOptions = {}): GracefulShutdown {
  const state = options.state ?? new ShutdownState();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const { logger } = options;
  const preStopDelayMs = checkedDelay(options.preStopDelayMs ?? 0);
  const open = new Set<ServerResponse>();

  // Node serves further requests on a kept-alive connection after close(): every answer
  // given while draining says `Connection: close`, so clients leave as their requests end.
  const track = (_req: IncomingMessage, res: ServerResponse) => {
    if (state.draining) res.setHeader('Connection', 'close');
    open.add(res);
    res.once('close', () => open.delete(res));
  };
  server.prependListener('request', track);

  let running: Promise<number> | undefined;
  const shutdown = () => (running ??= drainThenClose());
  const onSignal = (signal: NodeJS.Signals) => {
    if (running) {
      logger?.warn({ signal }, 'second signal: exiting at once');
      exit(1);
      return;
    }
    logger?.info(
      { signal, preStopDelayMs, timeoutMs: options.timeoutMs ?? 10_000 },
      'shutting down: not ready, then draining in-flight requests',
    );
    void shutdown().then(exit);
  };
  for (const signal of signals) process.on(signal, onSignal);

  async function drainThenClose(): Promise<number> {
    state.begin();
    // Still accepting: /readyz answers 503 and the balancer stops sending before connections are refused.
    if (preStopDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, preStopDelayMs));
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    // close() stops accepting and drops idle connections; its callback runs once every connection has ended.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if ((await within(closed, options.timeoutMs ?? 10_000)) !== 'ok') {
      logger?.warn({ open: open.size }, 'shutdown deadline passed: closing the connections still open');
      server.closeAllConnections();
    }
    let code = 0;
    for (const [name, close] of Object.entries(options.close ?? {})) {
      const outcome = await within(Promise.resolve().then(close), options.closeTimeoutMs ?? 5000);
      if (outcome !== 'ok') {
        code = 1;
        logger?.error({ resource: name, outcome }, 'shutdown could not close a resource');
      }
    }
    logger?.info({ code }, 'shut down');
    return code;
  }

  return {
    shutdown,
    dispose: () => {
      for (const signal of signals) process.off(signal, onSignal);
      server.off('request', track);
    },
  };
}

function checkedDelay(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new ConfigurationError(`preStopDelayMs must be a whole number of milliseconds, got ${ms}`);
  return ms;
}

// Whether a promise settles (resolves: 'ok', rejects: 'failed') before the time is up.
function within(promise: Promise<unknown>, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const settled = promise.then(
    (): Outcome => 'ok',
    (): Outcome => 'failed',
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}
