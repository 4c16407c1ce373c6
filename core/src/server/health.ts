import type { Knex } from 'knex';
import type { NeutralResult } from '../http/neutral';
import type { RouteDescriptor } from '../http/route';
import type { ShutdownState } from './shutdown-state';

/** A readiness check: resolves when its service answers, rejects (or hangs) when it does not. */
export type HealthCheck = () => Promise<unknown>;

/** What `healthRoutes` takes; every field is optional. */
export interface HealthOptions {
  /** Named checks `/readyz` runs concurrently (`{ database: knexCheck(knex) }`). */
  checks?: Record<string, HealthCheck>;
  /** Longest wait for each check before it counts as failed (default 1000 ms). */
  timeoutMs?: number;
  /** Path of the liveness route (default `/healthz`). */
  livePath?: string;
  /** Path of the readiness route (default `/readyz`). */
  readyPath?: string;
  /** Once it is draining (`gracefulShutdown` flips it), `/readyz` answers 503 without running the checks. */
  shutdown?: ShutdownState;
  /** While it reports overload (`loadShedding().monitor`), `/readyz` answers 503 saying why, so a balancer sends work elsewhere. */
  load?: { readonly overloaded: string | undefined };
}

/** A check's outcome: only these words, so no error text (which may carry a connection string) is answered. */
export type CheckState = 'ok' | 'failed' | 'timeout';

/** A check that the database answers a trivial query. */
export function knexCheck(knex: Knex): HealthCheck {
  return () => knex.raw('select 1');
}

function settle(check: HealthCheck, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  // A check that throws synchronously fails like one that rejects.
  const run = Promise.resolve()
    .then(check)
    .then(
      (): CheckState => 'ok',
      (): CheckState => 'failed',
    );
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}

const STATES_SCHEMA = { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'failed', 'timeout'] } };
// Probes must see the state now, never a cached answer.
const NO_STORE = { 'Cache-Control': 'no-store' };

function notReady(detail: string, checks: Record<string, CheckState>, timeoutMs: number): NeutralResult {
  return {
    status: 503,
    headers: { ...NO_STORE, 'Retry-After': String(Math.max(1, Math.ceil(timeoutMs / 1000))) },
    json: { detail, status: 'unavailable', checks },
  };
}

/** `GET /healthz` (the process answers) and `GET /readyz` (every check passes in time, else 503). */
export function healthRoutes(options: HealthOptions = {}): RouteDescriptor[] {
  const checks = Object.entries(options.checks ?? {});
  const timeoutMs = options.timeoutMs ?? 1000;
  return [
    {
      method: 'GET',
      path: options.livePath ?? '/healthz',
      operation: 'health_live',
      dependencies: [],
      handler: async () => ({ status: 200, headers: NO_STORE, json: { status: 'ok' } }),
      doc: {
        operationId: 'health_live',
        summary: 'The process answers',
        tags: ['health'],
        responses: {
          200: {
            description: 'Alive',
            schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'] },
          },
        },
      },
    },
    {
      method: 'GET',
      path: options.readyPath ?? '/readyz',
      operation: 'health_ready',
      dependencies: [],
      handler: async () => {
        if (options.shutdown?.draining) return notReady('Not ready: shutting down', {}, timeoutMs);
        const overloaded = options.load?.overloaded;
        if (overloaded) return notReady(`Not ready: overloaded (${overloaded})`, {}, timeoutMs);
        const states = await Promise.all(checks.map(([, check]) => settle(check, timeoutMs)));
        const byName = Object.fromEntries(checks.map(([name], i) => [name, states[i]]));
        const down = checks.filter((_, i) => states[i] !== 'ok').map(([name]) => name);
        if (down.length === 0) return { status: 200, headers: NO_STORE, json: { status: 'ready', checks: byName } };
        return notReady(`Not ready: ${down.join(', ')} unavailable`, byName, timeoutMs);
      },
      doc: {
        operationId: 'health_ready',
        summary: 'Every service the app needs answers',
        tags: ['health'],
        responses: {
          200: {
            description: 'Ready',
            schema: {
              type: 'object',
              properties: { status: { type: 'string', enum: ['ready'] }, checks: STATES_SCHEMA },
              required: ['status', 'checks'],
            },
          },
          503: {
            description: 'A service did not answer in time, or the process is shutting down',
            headers: {
              'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before asking again' },
            },
            schema: {
              type: 'object',
              properties: {
                detail: { type: 'string' },
                status: { type: 'string', enum: ['unavailable'] },
                checks: STATES_SCHEMA,
              },
              required: ['detail', 'status', 'checks'],
            },
          },
        },
      },
    },
  ];
}
