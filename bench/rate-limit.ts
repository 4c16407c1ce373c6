import type { Server } from 'node:http';
import { deepStrictEqual } from 'node:assert/strict';
import type { Knex } from 'knex';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { bootstrap, crudRouter, type App, type NeutralResult, type Plugin, type RouteDescriptor } from '@crudsmith/core';
import { createRedisClient, rateLimit, rateLimitHeaders, rateLimitMigrations, sanitizePath, windowStart } from '@crudsmith/rate-limit';
import { openSqlite } from './lib/db';
import { createItems, Item, seedItems } from './lib/items';
import { handlerReader, httpReader, listen } from './lib/item-readers';
import { compare, type Operation } from './lib/measure';
import type { ResultRow, Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';

// What the rate limiter costs on a read: GET /api/v1/items/{id} guarded by rateLimit()
// counting in memory and in Redis, against the same route without a limiter, and against
// the same route guarded by rate-limiter-flexible's RateLimiterRedis doing the same job
// (one counter per client and path, a fixed window, a 429 past the limit, the same five
// headers on every answer). Over real HTTP on Koa, and in process (the bootstrapped
// route's handler called with a neutral request), where the machine's noise is smaller.
// The limit is never reached: every request is counted and served. In the table "A" is
// the first app named in the comparison and "B" the second.
// Targets: limiter ÷ none ≥ 0.90, crudsmith Redis ÷ rate-limiter-flexible ≥ 1.00, and at
// most one Redis round trip per request (checked before measuring; the run stops otherwise).

const ROWS = 1000;
const LIMIT = 1_000_000_000;
const PERIOD = 3600;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function itemsRoutes(knex: Knex): RouteDescriptor[] {
  return crudRouter({ session: knex, model: Item, path: '/api/v1/items', includedMethods: ['read'] }).routes;
}

/**
 * rate-limiter-flexible as a plugin doing what rateLimit() does for an anonymous caller:
 * count (client address, path) in a fixed window in Redis, 429 past the limit, and the
 * same rate-limit headers on the answer.
 */
function flexiblePlugin(client: Redis, prefix: string): Plugin {
  const limiter = new RateLimiterRedis({ storeClient: client, points: LIMIT, duration: PERIOD, keyPrefix: prefix });
  const policy = { limit: LIMIT, period: PERIOD, name: 'default' };
  const STATE = 'bench.flexible';
  const headersOf = (res: RateLimiterRes, consumed: number) => {
    const now = Math.floor(Date.now() / 1000);
    const reset = now + Math.ceil(res.msBeforeNext / 1000);
    return rateLimitHeaders(policy, { allowed: consumed <= LIMIT, remaining: res.remainingPoints, reset, retryAfter: reset - now }, now);
  };
  return {
    name: 'rate-limiter-flexible',
    hooks: {
      async before(req): Promise<NeutralResult | void> {
        const key = `${req.clientAddress}:${sanitizePath(req.path)}`;
        try {
          const res = await limiter.consume(key);
          req.state[STATE] = headersOf(res, res.consumedPoints);
        } catch (rejected) {
          if (!(rejected instanceof RateLimiterRes)) throw rejected;
          const headers = headersOf(rejected, rejected.consumedPoints);
          return { status: 429, headers: { ...headers, 'Retry-After': String(Math.ceil(rejected.msBeforeNext / 1000)) }, json: { detail: 'Rate limit exceeded' } };
        }
      },
      after(req, _route, result) {
        const headers = req.state[STATE] as Record<string, string> | undefined;
        return headers ? { ...result, headers: { ...result.headers, ...headers } } : undefined;
      },
    },
  };
}



/**
 * `width` calls of `op` at once, as one operation: throughput with requests in flight
 * together, where a Redis round trip overlaps other requests' work instead of adding to
 * one request's latency (concurrency 1 measures that latency).
 */
function concurrently(op: Operation, width: number): Operation {
  return () => Promise.all(Array.from({ length: width }, () => op()));
}


/** Counts the commands a client sends (each of these limiters sends one per request, never pipelined). */
function countCommands(client: Redis): { count: () => number } {
  let sent = 0;
  const original = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    sent++;
    return original(...args);
  }) as Redis['sendCommand'];
  return { count: () => sent };
}

/** Fails the run unless `n` requests through `read` cost at most `n` commands on the counter. */
async function checkRoundTrips(name: string, read: Operation, counter: { count: () => number }): Promise<number> {
  const n = 200;
  const before = counter.count();
  for (let i = 0; i < n; i++) await read();
  const perRequest = (counter.count() - before) / n;
  console.log(`  ${name}: ${perRequest.toFixed(2)} Redis round trips per request`);
  if (perRequest > 1) throw new Error(`${name} costs ${perRequest} Redis round trips per request (target: at most 1)`);
  return perRequest;
}

function ready(client: Redis): Promise<void> {
  return client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', () => resolve()));
}

/** Removes every key the run left under `prefix` (a client without keyPrefix: KEYS answers full names). */
async function deleteKeys(prefix: string): Promise<void> {
  const plain = new Redis(REDIS_URL);
  try {
    const keys = await plain.keys(`${prefix}*`);
    if (keys.length) await plain.del(...keys);
  } finally {
    plain.disconnect();
  }
}

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch (error) {
    console.log(`  Redis unreachable at ${REDIS_URL} (${(error as Error).message}): measuring the memory store only.`);
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A row's target: ≥ 1.00 against rate-limiter-flexible, ≥ 0.90 against no limiter, none for the reference row. */
function targetOf(row: ResultRow): number | undefined {
  if (row.operation.startsWith(REFERENCE)) return undefined;
  return row.operation.includes('flexible') ? 1 : 0.9;
}

function targetCell(row: ResultRow): string {
  const target = targetOf(row);
  if (target === undefined) return 'reference';
  return `≥ ${target.toFixed(2)} ${row.ratio >= target ? 'met' : 'MISSED'}`;
}

// The reference row: a bare PING before each read, no limiter. Any limiter counting in
// Redis waits one round trip per request, so at one request in flight no such limiter can
// beat this ratio; it shows how much of the Redis rows' gap is the network, not the code.
const REFERENCE = 'HTTP: one PING then the read ÷ no limiter';

/** A read over HTTP preceded by one Redis PING on `client`: the floor of a Redis limiter. */
function pingThen(client: Redis, read: Operation): Operation {
  return async () => {
    await client.ping();
    return read();
  };
}

const columns: Column<ResultRow>[] = [
  { title: 'suite', value: (r) => r.suite },
  { title: 'comparison (A ÷ B)', value: (r) => r.operation },
  { title: 'A ops/s', value: (r) => formatOps(r.crudsmith), right: true },
  { title: 'B ops/s', value: (r) => formatOps(r.knex), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  { title: 'target', value: targetCell },
];

export const rateLimitSuite: Suite = {
  name: 'rate-limit',
  table: (rows) => formatTable(columns, rows),
  async run() {
    const db = await openSqlite();
    const prefix = `crudsmith-bench:${process.pid}:`;
    const clients: Redis[] = [];
    const apps: App[] = [];
    const servers: Server[] = [];
    try {
      await createItems(db.knex);
      await seedItems(db.knex, ROWS);
      const ids = (await db.knex('items').where('is_deleted', false).pluck('id')) as number[];
      const started = async (app: App) => {
        await app.start(db.knex);
        apps.push(app);
        const served = await listen(app);
        servers.push(served.server);
        return { app, url: served.url };
      };
      const guarded = (store: 'memory' | Redis) => {
        const limits = rateLimit({ knex: db.knex, store, defaultLimit: LIMIT, defaultPeriod: PERIOD, paths: ['/api/v1/items'], channel: `${prefix}invalidate` });
        return bootstrap({ routers: [itemsRoutes(db.knex)], plugins: [limits.plugin], migrations: [rateLimitMigrations] });
      };

      const plain = await started(bootstrap({ routers: [itemsRoutes(db.knex)] }));
      const memory = await started(guarded('memory'));
      const sides: { operation: string; ours: Operation; theirs: Operation }[] = [
        { operation: 'HTTP: memory limiter ÷ no limiter', ours: httpReader(memory.url, '/api/v1/items', ids), theirs: httpReader(plain.url, '/api/v1/items', ids) },
        { operation: 'HTTP, 8 in flight: memory limiter ÷ no limiter', ours: concurrently(httpReader(memory.url, '/api/v1/items', ids), 8), theirs: concurrently(httpReader(plain.url, '/api/v1/items', ids), 8) },
      ];

      if (await redisReachable()) {
        const ours = createRedisClient({ url: REDIS_URL }, { keyPrefix: prefix });
        const theirs = new Redis(REDIS_URL, { keyPrefix: prefix, enableOfflineQueue: false });
        clients.push(ours, theirs);
        await Promise.all([ready(ours), ready(theirs)]);
        const redis = await started(guarded(ours));
        const flexible = await started(bootstrap({ routers: [itemsRoutes(db.knex)], plugins: [flexiblePlugin(theirs, 'rlflx')] }));

        // Same answers and the same headers, before anything is measured.
        const one = await fetch(`${redis.url}/api/v1/items/${ids[0]}`);
        const two = await fetch(`${flexible.url}/api/v1/items/${ids[0]}`);
        deepStrictEqual(await one.json(), await two.json(), 'both limited apps answer the same item');
        for (const header of ['x-ratelimit-limit', 'x-ratelimit-reset', 'ratelimit-policy']) {
          if (!one.headers.get(header) || !two.headers.get(header)) throw new Error(`${header} missing on a limited answer`);
        }
        const window = windowStart(Math.floor(Date.now() / 1000), PERIOD);
        if (Number(one.headers.get('x-ratelimit-reset')) !== window + PERIOD) throw new Error('crudsmith reset header is not the window end');

        await checkRoundTrips('crudsmith (Redis)', handlerReader(redis.app, '/api/v1/items', ids), countCommands(ours));
        await checkRoundTrips('rate-limiter-flexible', handlerReader(flexible.app, '/api/v1/items', ids), countCommands(theirs));

        sides.push(
          { operation: REFERENCE, ours: pingThen(theirs, httpReader(plain.url, '/api/v1/items', ids)), theirs: httpReader(plain.url, '/api/v1/items', ids) },
          { operation: 'HTTP: Redis limiter ÷ no limiter', ours: httpReader(redis.url, '/api/v1/items', ids), theirs: httpReader(plain.url, '/api/v1/items', ids) },
          { operation: 'HTTP, 8 in flight: Redis limiter ÷ no limiter', ours: concurrently(httpReader(redis.url, '/api/v1/items', ids), 8), theirs: concurrently(httpReader(plain.url, '/api/v1/items', ids), 8) },
          { operation: 'HTTP: Redis limiter ÷ rate-limiter-flexible', ours: httpReader(redis.url, '/api/v1/items', ids), theirs: httpReader(flexible.url, '/api/v1/items', ids) },
          { operation: 'in process: Redis limiter ÷ rate-limiter-flexible', ours: handlerReader(redis.app, '/api/v1/items', ids), theirs: handlerReader(flexible.app, '/api/v1/items', ids) },
        );
      }
      sides.push({ operation: 'in process: memory limiter ÷ no limiter', ours: handlerReader(memory.app, '/api/v1/items', ids), theirs: handlerReader(plain.app, '/api/v1/items', ids) });

      const rows: ResultRow[] = [];
      for (const { operation, ours, theirs } of sides) {
        const row: ResultRow = { suite: 'rate-limit', engine: 'sqlite', operation, ...(await compare(ours, theirs)) };
        console.log(`  ${operation}: ${row.ratio.toFixed(3)}`);
        rows.push(row);
      }
      console.log('  targets: limiter ÷ no limiter ≥ 0.90 over HTTP; Redis limiter ÷ rate-limiter-flexible ≥ 1.00; ≤ 1 Redis round trip per request');
      return rows;
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      for (const app of apps) await app.close();
      for (const client of clients) client.disconnect();
      if (clients.length) await deleteKeys(prefix);
      await db.close();
    }
  },
};
