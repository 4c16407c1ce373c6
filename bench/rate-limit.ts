import { deepStrictEqual } from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { App, Plugin } from '@crudsmith/core';
import { windowStart } from '@crudsmith/rate-limit';
import { createRedisClient, RedisStore } from '@crudsmith/rate-limit/redis';
import { ENGINES, openDatabase, openSqlite, type Engine } from './lib/db';
import { createItems, prng, seedItems } from './lib/items';
import { handlerReader } from './lib/item-readers';
import { compare, type Operation } from './lib/measure';
import { BENCH_PERIOD, flexiblePlugin } from './lib/reference-limiters';
import type { ResultRow, Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';
import { countCommands, type CommandCounter } from './lib/redis-commands';
import type { RequestKind } from './http/load';
import { connected, crudsmithLimiter, guardedApp, LIMITED_PREFIX } from './http/limited-apps';
import { FRAMEWORKS, type Framework, type Guard } from './http/protocol';
import { compareServers, defaultHttpOptions } from './http/rounds';
import { traced } from './http/scenario';
import { startServer, stopServers, warmUp, type ServerProcess } from './http/server';

// What the rate limiter costs on a read: GET /api/v1/items/{id} guarded by rateLimit()
// counting in memory and in Redis, against the same route without a limiter, and against
// the same route guarded by rate-limiter-flexible's RateLimiterRedis doing the same job
// (one counter per client and path, a fixed window, a 429 past the limit, the same five
// headers on every answer).
// The floor is the natural one: the same read and limit written by hand in the framework
// (one Redis round trip, one statement; http/limited-floor.ts).
// Over HTTP as the HTTP suite measures: every server in its own process on Koa, Express
// and Fastify, loaded by autocannon from here, 8 connections (throughput) and 1 (one
// request's latency), on SQLite and PostgreSQL. In process (the bootstrapped route's
// handler called with a neutral request) on SQLite, where the machine's noise is smaller.
// The limit is never reached: every request is counted and served. "A" is the first
// server named in a comparison and "B" the second.
// Targets: Redis limiter ÷ the floor ≥ 0.95, memory limiter ÷ none ≥ 0.90, crudsmith Redis
// ÷ rate-limiter-flexible ≥ 1.00, and one statement and at most one Redis round trip per
// request (counted on every server before measuring, printed; the run stops otherwise).

const ROWS = 1000;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A row of the suite: a comparison, and the server CPU per request of each side over HTTP (µs). */
export interface RateLimitRow extends ResultRow {
  framework?: Framework;
  cpu?: [number, number];
  /** Statements and Redis round trips per request of each side, as printed (`1 + 1 / 1 + 0`). */
  perRequest?: string;
}

/**
 * The HTTP comparisons: the guard of each side, how many connections, the row's target
 * (none: a reference row; a bare PING shows what the round trip alone costs a read, and
 * the Redis limiter ÷ no limiter what the whole limiter costs crudsmith's own read).
 */
const HTTP_ROWS: { a: Guard; b: Guard; connections: number; needsRedis: boolean; target?: number }[] = [
  { a: 'redis', b: 'floor', connections: 8, needsRedis: true, target: 0.95 },
  { a: 'redis', b: 'flexible', connections: 8, needsRedis: true, target: 1 },
  { a: 'memory', b: 'none', connections: 8, needsRedis: false, target: 0.9 },
  { a: 'redis', b: 'none', connections: 8, needsRedis: true },
  { a: 'ping', b: 'none', connections: 8, needsRedis: true },
  { a: 'redis', b: 'floor', connections: 1, needsRedis: true, target: 0.95 },
];

const GUARD_NAMES: Record<Guard, string> = {
  none: 'no limiter',
  memory: 'memory limiter',
  redis: 'Redis limiter',
  flexible: 'rate-limiter-flexible',
  ping: 'one PING per request',
  floor: 'floor',
};

function rowName(a: Guard, b: Guard, connections: number): string {
  return `HTTP ×${connections}: ${GUARD_NAMES[a]} ÷ ${GUARD_NAMES[b]}`;
}

/** Fails the run unless `n` requests through `read` cost at most `n` commands on the counter. */
async function checkRoundTrips(name: string, read: Operation, counter: CommandCounter): Promise<void> {
  const n = 200;
  const before = counter.count();
  for (let i = 0; i < n; i++) await read();
  const perRequest = (counter.count() - before) / n;
  console.log(`  ${name}: ${perRequest.toFixed(2)} Redis round trips per request`);
  if (perRequest > 1) throw new Error(`${name} costs ${perRequest} Redis round trips per request (target: at most 1)`);
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
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
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

/** Random item reads, the same sequence for each side of a comparison. */
function reads(ids: number[]): () => RequestKind {
  return () => {
    const random = prng(11);
    return { method: 'GET', next: () => ({ path: `${LIMITED_PREFIX}/${ids[Math.floor(random() * ids.length)]}` }) };
  };
}

/** Fails the run unless every server answers the same item, and the limited ones the rate-limit headers (crudsmith's with the window's end). */
async function checkAnswers(servers: Partial<Record<Guard, ServerProcess>>, id: number): Promise<void> {
  let expected: unknown;
  for (const [guard, server] of Object.entries(servers) as [Guard, ServerProcess][]) {
    const response = await fetch(`http://127.0.0.1:${server.port}${LIMITED_PREFIX}/${id}`);
    const json = await response.json();
    if (expected === undefined) expected = json;
    deepStrictEqual(json, expected, `${guard}: every server answers the same item`);
    if (guard === 'none' || guard === 'ping') continue;
    for (const header of [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'ratelimit',
      'ratelimit-policy',
    ]) {
      if (!response.headers.get(header)) throw new Error(`${guard}: ${header} missing on a limited answer`);
    }
    // The window of the moment the answer came; a request sent just before an hour's turn may be counted in the one before.
    const window = windowStart(Math.floor(Date.now() / 1000), BENCH_PERIOD);
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    if (guard !== 'flexible' && reset !== window + BENCH_PERIOD && reset !== window)
      throw new Error(`${guard}: the reset header is not the window's end`);
  }
}

/** Statements and Redis commands per request of each server, over a few traced reads; fails the run past one of each. */
async function countPerRequest(
  servers: Partial<Record<Guard, ServerProcess>>,
  ids: number[],
): Promise<Partial<Record<Guard, string>>> {
  const n = 5;
  const counts: Partial<Record<Guard, string>> = {};
  for (const [guard, server] of Object.entries(servers) as [Guard, ServerProcess][]) {
    let statements = 0;
    let commands = 0;
    for (let i = 0; i < n; i++) {
      const answer = await traced(server, { method: 'GET', path: `${LIMITED_PREFIX}/${ids[i]}` });
      if (answer.status !== 200) throw new Error(`${guard}: a read answered ${answer.status}`);
      statements += answer.sql.length;
      commands += answer.redis;
    }
    const [sql, redis] = [statements / n, commands / n];
    if (sql > 1 || redis > 1)
      throw new Error(
        `${guard}: ${sql} statements and ${redis} Redis round trips per read (target: at most one of each)`,
      );
    counts[guard] = `${sql} + ${redis}`;
  }
  return counts;
}

/** Where the HTTP rows of an engine run: its database, the live ids, whether Redis answers, the Redis key prefix. */
interface HttpSetup {
  engine: Engine;
  connection: string;
  ids: number[];
  withRedis: boolean;
  prefix: string;
}

/** The HTTP rows of one framework on one engine: one server process per guard, each pair compared in rounds. */
async function measureFramework(
  framework: Framework,
  { engine, connection, ids, withRedis, prefix }: HttpSetup,
  rows: RateLimitRow[],
): Promise<void> {
  const children: ChildProcess[] = [];
  try {
    const kind = reads(ids);
    const guards: Guard[] = withRedis ? ['none', 'memory', 'redis', 'flexible', 'ping', 'floor'] : ['none', 'memory'];
    const servers: Partial<Record<Guard, ServerProcess>> = {};
    // One at a time: each runs the limiter's migrations on start, and SQLite takes one writer.
    for (const guard of guards) {
      const server = await startServer({
        framework,
        side: 'crudsmith',
        engine,
        connection,
        limited: { guard, redisUrl: REDIS_URL, redisPrefix: prefix },
      });
      children.push(server.child);
      servers[guard] = server;
    }
    await checkAnswers(servers, ids[0]);
    const perRequest = await countPerRequest(servers, ids);
    console.log(
      `  ${engine} ${framework} statements + Redis round trips per read: ${guards.map((g) => `${g} ${perRequest[g]}`).join(', ')}`,
    );
    for (const guard of guards) await warmUp(servers[guard]!, kind());
    for (const { a, b, connections, needsRedis } of HTTP_ROWS) {
      if (needsRedis && !withRedis) continue;
      const result = await compareServers({ crudsmith: servers[a]!, floor: servers[b]! }, kind, {
        ...defaultHttpOptions,
        connections,
      });
      const operation = rowName(a, b, connections);
      console.log(`  ${engine} ${framework} ${operation}: ${result.ratio.toFixed(2)}`);
      rows.push({
        suite: 'rate-limit',
        engine,
        framework,
        operation,
        crudsmith: result.crudsmith.rps,
        knex: result.floor.rps,
        ratio: result.ratio,
        ratioRange: result.ratioRange,
        cpu: [result.crudsmith.cpu, result.floor.cpu],
        perRequest: `${perRequest[a]} / ${perRequest[b]}`,
      });
    }
  } finally {
    await stopServers(children);
  }
}

/** The HTTP rows on one engine, framework after framework, over the same seeded table. */
async function measureHttp(engine: Engine, withRedis: boolean, prefix: string, rows: RateLimitRow[]): Promise<void> {
  const db = await openDatabase(engine);
  if (!db) return;
  try {
    if (engine === 'sqlite') await db.knex.raw('PRAGMA journal_mode = WAL');
    await createItems(db.knex);
    await seedItems(db.knex, ROWS);
    const ids = (await db.knex('items').where('is_deleted', false).pluck('id')) as number[];
    for (const framework of FRAMEWORKS)
      await measureFramework(framework, { engine, connection: db.connection, ids, withRedis, prefix }, rows);
  } finally {
    await db.close();
  }
}

/** The in-process rows on SQLite, after checking each Redis limiter sends one command per request. */
async function measureInProcess(withRedis: boolean, prefix: string, rows: RateLimitRow[]): Promise<void> {
  const db = await openSqlite();
  const clients: Redis[] = [];
  const apps: App[] = [];
  try {
    await createItems(db.knex);
    await seedItems(db.knex, ROWS);
    const ids = (await db.knex('items').where('is_deleted', false).pluck('id')) as number[];
    const started = async (guard?: Plugin) => {
      const app = guardedApp(db.knex, guard);
      await app.start(db.knex);
      apps.push(app);
      return app;
    };
    const plain = await started();
    const memory = await started(crudsmithLimiter(db.knex, 'memory', prefix));
    const sides: { operation: string; ours: Operation; theirs: Operation }[] = [];
    if (withRedis) {
      const ours = createRedisClient({ url: REDIS_URL }, { keyPrefix: prefix });
      const theirs = new Redis(REDIS_URL, { keyPrefix: prefix, enableOfflineQueue: false });
      clients.push(ours, theirs);
      await Promise.all([connected(ours), connected(theirs)]);
      const redis = await started(crudsmithLimiter(db.knex, new RedisStore(ours), prefix));
      const flexible = await started(flexiblePlugin(theirs, 'rlflx'));
      await checkRoundTrips('crudsmith (Redis)', handlerReader(redis, LIMITED_PREFIX, ids), countCommands(ours));
      await checkRoundTrips(
        'rate-limiter-flexible',
        handlerReader(flexible, LIMITED_PREFIX, ids),
        countCommands(theirs),
      );
      sides.push({
        operation: 'in process: Redis limiter ÷ rate-limiter-flexible',
        ours: handlerReader(redis, LIMITED_PREFIX, ids),
        theirs: handlerReader(flexible, LIMITED_PREFIX, ids),
      });
    }
    sides.push({
      operation: 'in process: memory limiter ÷ no limiter',
      ours: handlerReader(memory, LIMITED_PREFIX, ids),
      theirs: handlerReader(plain, LIMITED_PREFIX, ids),
    });
    for (const { operation, ours, theirs } of sides) {
      const row: RateLimitRow = { suite: 'rate-limit', engine: 'sqlite', operation, ...(await compare(ours, theirs)) };
      console.log(`  sqlite ${operation}: ${row.ratio.toFixed(2)}`);
      rows.push(row);
    }
  } finally {
    for (const app of apps) await app.close();
    for (const client of clients) client.disconnect();
    await db.close();
  }
}

/** A row's target: its HTTP comparison's (none for the reference rows); in process, ≥ 1.00 against rate-limiter-flexible and ≥ 0.90 against no limiter. */
function targetOf(row: RateLimitRow): number | undefined {
  const http = HTTP_ROWS.find(({ a, b, connections }) => rowName(a, b, connections) === row.operation);
  if (http) return http.target;
  return row.operation.includes('flexible') ? 1 : 0.9;
}

function targetCell(row: RateLimitRow): string {
  const target = targetOf(row);
  if (target === undefined) return 'reference';
  return `≥ ${target.toFixed(2)} ${row.ratio >= target ? 'met' : 'MISSED'}`;
}

const columns: Column<RateLimitRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'framework', value: (r) => r.framework ?? '' },
  { title: 'comparison (A ÷ B)', value: (r) => r.operation },
  { title: 'A ops/s', value: (r) => formatOps(r.crudsmith), right: true },
  { title: 'B ops/s', value: (r) => formatOps(r.knex), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  {
    title: 'cpu/req A/B',
    value: (r) => (r.cpu ? `${Math.round(r.cpu[0])}/${Math.round(r.cpu[1])} µs` : ''),
    right: true,
  },
  { title: 'sql + redis/req A / B', value: (r) => r.perRequest ?? '' },
  { title: 'target', value: targetCell },
];

export const rateLimitSuite: Suite<RateLimitRow> = {
  name: 'rate-limit',
  table: (rows) =>
    [
      formatTable(columns, rows),
      '',
      "HTTP ×n: each server in its own process on the framework, loaded by autocannon over n connections; ×8 measures throughput, ×1 one request's latency",
      "floor: the read and its limit by hand in the same framework, one Redis round trip (a script: INCR, EXPIRE on a window's first request) and one statement",
      'sql + redis/req: the statements and Redis round trips each side sent per read (counted over five traced reads)',
      "cpu/req: the server process's CPU time per request (median over the rounds); in process: the handler called directly, no HTTP",
    ].join('\n'),
  async run() {
    const prefix = `crudsmith-bench:${process.pid}:`;
    const withRedis = await redisReachable();
    const { rounds, roundSeconds } = defaultHttpOptions;
    console.log(
      `  ${ROWS.toLocaleString('en-US')} rows; over HTTP, per row ${rounds} rounds of ${roundSeconds} s per server`,
    );
    const rows: RateLimitRow[] = [];
    try {
      for (const engine of ENGINES) await measureHttp(engine, withRedis, prefix, rows);
      await measureInProcess(withRedis, prefix, rows);
    } finally {
      if (withRedis) await deleteKeys(prefix);
    }
    console.log(
      '  targets: Redis limiter ÷ floor ≥ 0.95; Redis limiter ÷ rate-limiter-flexible ≥ 1.00; memory limiter ÷ no limiter ≥ 0.90; one statement and ≤ 1 Redis round trip per request',
    );
    return rows;
  },
};
