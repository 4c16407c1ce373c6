import { getHeapStatistics } from 'node:v8';
import { ServiceUnavailableError } from '../errors/http-error';
import type { Plugin } from '../plugin/plugin';
import type { RouteDescriptor } from '../http/route';

/** When a process counts as overloaded; every field is optional. */
export interface LoadSheddingOptions {
  /** Most event-loop delay tolerated, in ms (default 1000); 0 turns the check off. */
  maxEventLoopDelayMs?: number;
  /** Most of V8's heap limit in use, as a fraction (default 0.9); 0 turns the check off. */
  maxHeapUsedRatio?: number;
  /** How often the load is measured, in ms (default 500). */
  sampleIntervalMs?: number;
  /** Retry-After of a shed request, in seconds (default 5). */
  retryAfterSeconds?: number;
  /** Routes never shed (default: the health routes, so probes still answer and `/readyz` says why). */
  exempt?: (route: RouteDescriptor) => boolean;
}

/**
 * Watches this process's load: the event-loop delay (how late a timer fires: while the
 * loop is saturated every request waits that long) and the heap in use. `overloaded` names
 * the bound passed at the last sample, or is undefined. The timer is unref'd: it never
 * keeps a process alive.
 */
export class LoadMonitor {
  private timer: NodeJS.Timeout | undefined;
  private reason: string | undefined;
  private readonly delayBound: number;
  private readonly heapBound: number;
  readonly intervalMs: number;

  constructor(
    options: LoadSheddingOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.delayBound = bound(options.maxEventLoopDelayMs ?? 1000, 'maxEventLoopDelayMs');
    this.heapBound = bound(options.maxHeapUsedRatio ?? 0.9, 'maxHeapUsedRatio');
    if (this.heapBound > 1)
      throw new RangeError(`maxHeapUsedRatio is a fraction of the heap limit, got ${this.heapBound}`);
    this.intervalMs = bound(options.sampleIntervalMs ?? 500, 'sampleIntervalMs') || 500;
  }

  /** Why the process refuses work now ("event loop delay 1200 ms"), or undefined. */
  get overloaded(): string | undefined {
    return this.reason;
  }

  /** Starts sampling; calling it again changes nothing. */
  start(): void {
    if (this.timer) return;
    let expected = this.now() + this.intervalMs;
    this.timer = setInterval(() => {
      // A timer due at `expected` that runs later measures how long the loop was held.
      const delay = Math.max(0, this.now() - expected);
      expected = this.now() + this.intervalMs;
      this.reason = this.judge(delay, process.memoryUsage().heapUsed / getHeapStatistics().heap_size_limit);
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops sampling and forgets the last verdict. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.reason = undefined;
  }

  /** The verdict for one sample: the first bound passed, or undefined. */
  judge(delayMs: number, heapRatio: number): string | undefined {
    if (this.delayBound > 0 && delayMs > this.delayBound) return `event loop delay ${Math.round(delayMs)} ms`;
    if (this.heapBound > 0 && heapRatio > this.heapBound) return `heap ${Math.round(heapRatio * 100)}% used`;
    return undefined;
  }
}

/** Thrown by the shedding hook: a 503 with Retry-After, saying the process is overloaded. */
export class OverloadedError extends ServiceUnavailableError {
  constructor(reason: string, retryAfter: number) {
    super(`The server is overloaded (${reason}); try again shortly`, { retryAfter });
    this.name = 'OverloadedError';
  }
}

/** The load-shedding plugin: its monitor (for `healthRoutes({ load })`) comes with it. */
export interface LoadShedding extends Plugin {
  monitor: LoadMonitor;
}

/**
 * Refuses work while the process is overloaded (503 with Retry-After) instead of queueing
 * it until every answer is late, on every adapter: a plugin whose hook runs before any
 * dependency. Put it first in `plugins`, so a shed request costs nothing else (it is not
 * counted by the rate limiter, nor does it touch a session). Probes are exempt.
 */
export function loadShedding(options: LoadSheddingOptions = {}): LoadShedding {
  const monitor = new LoadMonitor(options);
  const retryAfter = Math.max(1, Math.ceil(options.retryAfterSeconds ?? 5));
  const exempt =
    options.exempt ??
    ((route: RouteDescriptor) => route.operation === 'health_live' || route.operation === 'health_ready');
  return {
    name: 'load-shedding',
    monitor,
    hooks: {
      appliesTo: (route) => !exempt(route),
      before() {
        // Sampling starts with the first request: the start-up's own stalls (migrations,
        // schema compilation) are not load, and must not shed the first requests.
        monitor.start();
        const reason = monitor.overloaded;
        if (reason) throw new OverloadedError(reason, retryAfter);
      },
    },
    async close() {
      monitor.stop();
    },
  };
}

function bound(value: number, name: string): number {
  if (!(value >= 0) || !Number.isFinite(value))
    throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  return value;
}
