import {
  bootstrap,
  type App,
  type Dependency,
  type NeutralResult,
  type Principal,
  type RouteDescriptor,
} from '@crudsmith/core';
import { createRequest, runRoute } from '@crudsmith/core/adapter';
import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import { MemoryStore, rateLimit, type RateLimitOptions, type RateLimitStore } from '@crudsmith/rate-limit';
import { createRedisClient, RedisStore } from '@crudsmith/rate-limit/redis';

/** Log lines the plugin wrote, by level. */
export interface CapturedLog {
  level: 'warn' | 'error' | 'info';
  message: string;
  details?: Record<string, unknown>;
}

/** A store that records every key it is asked to count. */
export class RecordingStore implements RateLimitStore {
  readonly keys: string[] = [];
  constructor(private readonly inner: RateLimitStore) {}
  hit(key: string, period: number, limit?: number): Promise<number> {
    this.keys.push(key);
    return this.inner.hit(key, period, limit);
  }
}

const ok =
  (name: string): RouteDescriptor['handler'] =>
  async (req) => ({ status: 200, json: { route: name, params: req.params } });

/**
 * A small app: items and posts under guarded prefixes, one route guarded only by the
 * limiter dependency, one unguarded. The principal comes from an `x-user` header.
 */
export function buildApp(
  options: Partial<RateLimitOptions> & Pick<RateLimitOptions, 'knex'>,
  users: Record<string, Principal> = {},
) {
  const clock = { ms: 1_000_000 };
  const logs: CapturedLog[] = [];
  const store =
    options.store === undefined ? new RecordingStore(new MemoryStore({ now: () => clock.ms })) : options.store;
  const limits = rateLimit({
    defaultLimit: 3,
    defaultPeriod: 60,
    paths: ['/api/v1/items', '/api/v1/posts'],
    now: () => clock.ms,
    logger: {
      warn: (message, details) => void logs.push({ level: 'warn', message, details }),
      error: (message, details) => void logs.push({ level: 'error', message, details }),
      info: (message, details) => void logs.push({ level: 'info', message, details }),
    },
    ...options,
    store,
  });
  const route = (path: string, dependencies: Dependency[] = []): RouteDescriptor => ({
    method: 'GET',
    path,
    operation: `get${path.replace(/\W/g, '_')}`,
    dependencies,
    handler: ok(path),
  });
  const principal: Dependency<Principal | null> = (req) => users[req.headers['x-user'] ?? ''] ?? null;
  const app: App = bootstrap({
    routers: [
      [
        route('/api/v1/items'),
        route('/api/v1/items/:id'),
        route('/api/v1/posts', [limits.limiter]),
        route('/api/v1/search', [limits.limiter]),
        route('/api/v1/itemsx'),
        route('/health'),
        {
          ...route('/api/v1/items/:id/missing'),
          handler: async () => ({ status: 404, json: { detail: 'Item not found' } }),
        },
      ],
    ],
    plugins: [limits],
    principal,
  });

  /** Serves one GET through the matching route, as an adapter would. */
  async function get(
    path: string,
    init: { user?: string; address?: string; userAgent?: string; query?: Record<string, string> } = {},
  ): Promise<NeutralResult> {
    const bare = path.replace(/\/+$/, '') || '/';
    const match = app.routes.map((r) => ({ r, params: matchRoute(r.path, bare) })).find((m) => m.params);
    if (!match) throw new Error(`no route for ${path}`);
    const req = createRequest({
      method: 'GET',
      path,
      params: match.params!,
      query: init.query ?? {},
      headers: { ...(init.user ? { 'x-user': init.user } : {}), 'user-agent': init.userAgent ?? 'vitest' },
      body: undefined,
      clientAddress: init.address ?? '127.0.0.1',
    });
    return runRoute(match.r, req);
  }
  return { app, limits, store, clock, logs, get };
}

function matchRoute(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = got[i];
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

/**
 * A started kit counting in the Redis on `port` through the plugin's fail-fast client
 * (300 ms command timeout); the caller closes the app and disconnects the client.
 */
export async function startOnRedis(
  knex: Knex,
  port: number,
  failOpen: boolean,
): Promise<{ kit: ReturnType<typeof buildApp>; client: Redis }> {
  const client = createRedisClient({ host: '127.0.0.1', port, db: 0 });
  client.on('error', () => {});
  const kit = buildApp({ knex, store: new RedisStore(client, { commandTimeoutMs: 300 }), failOpen });
  await kit.app.start(knex);
  return { kit, client };
}
