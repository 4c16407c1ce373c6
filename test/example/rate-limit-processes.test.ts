import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import {
  describeRedis,
  eventually,
  freePort,
  startRedisServer,
  stopRedisServer,
} from '../plugins/rate-limit/redis-fixture';
import { spawnApp, type AppProcess } from './spawn-app';

// Two example-app processes sharing one database and one Redis behave as one
// for rate limits. The Redis is a server of its own (nothing else counts in it) and the
// database one of the fixture's uniquely named ones (PostgreSQL when the run has it,
// else one SQLite file both processes open).
const LIMIT = 40;
// A default window this long does not roll over during the suite, so "exactly LIMIT" holds.
const PERIOD = 30 * 24 * 3600;

interface Counted {
  status: number;
  reset: number;
  retryAfter: number | null;
}

describeRedis('rate limits in two example-app processes sharing one Redis and one database', () => {
  const engine = ENGINES.includes('postgres') ? 'postgres' : 'sqlite';
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let redisPort: number;
  let a: AppProcess;
  let b: AppProcess;
  let adminToken: string;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const json = async (res: Response) => (await res.json()) as any;
  const tokenOf = async (app: AppProcess, username: string, password: string): Promise<string> => {
    const res = await fetch(`${app.url}/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({ username, password }),
    });
    expect(res.status).toBe(200);
    return (await json(res)).access_token;
  };
  const count = async (app: AppProcess, path: string, headers: Record<string, string>): Promise<Counted> => {
    const res = await fetch(`${app.url}${path}`, { headers });
    await res.arrayBuffer();
    expect([200, 429]).toContain(res.status);
    return {
      status: res.status,
      reset: Number(res.headers.get('x-ratelimit-reset')),
      retryAfter: res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : null,
    };
  };

  beforeAll(async () => {
    redisPort = await freePort();
    await startRedisServer(redisPort);
    const env: Record<string, string> = {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DEFAULT_RATE_LIMIT_LIMIT: String(LIMIT),
      DEFAULT_RATE_LIMIT_PERIOD: String(PERIOD),
      TRUSTED_PROXIES: '127.0.0.1',
    };
    if (engine === 'postgres') {
      db = await openDatabase('postgres');
      env.DATABASE_URL = db.url!;
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-two-'));
      env.DATA_DIR = dataDir;
    }
    // One after the other: the first migrates and creates the superuser.
    a = await spawnApp({ ...env, ADAPTER: 'koa' });
    b = await spawnApp({ ...env, ADAPTER: 'fastify' });
    adminToken = await tokenOf(a, 'admin', 'admin-test-password-1');
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    stopRedisServer(redisPort, true);
  });

  it(`allow exactly ${LIMIT} requests in a window between them under concurrent load`, async () => {
    const client = { 'x-forwarded-for': '203.0.113.7' };
    const answers = await Promise.all(
      Array.from({ length: LIMIT * 4 }, (_, i) => count(i % 2 ? b : a, '/api/v1/items', client)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(LIMIT * 3);
    // Both processes refused some: neither counted on its own.
    for (const side of [0, 1])
      expect(answers.filter((r, j) => j % 2 === side && r.status === 429).length).toBeGreaterThan(0);
    expect(new Set(answers.map((r) => r.reset)).size).toBe(1);
    // Another client, in either process, starts from a full window.
    expect((await count(b, '/api/v1/items', { 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
  }, 60_000);

  it('split a burst across a window boundary between the two windows, each allowing exactly its limit', async () => {
    // A tier with a 2-second window on /api/v1/items, made through one process and used through both.
    const created = await fetch(`${a.url}/api/v1/users/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Burst',
        username: 'burst',
        email: 'burst@example.com',
        password: 'a perfectly fine passphrase',
      }),
    });
    const userId = (await json(created)).id;
    const tier = await json(
      await fetch(`${a.url}/api/v1/tiers`, {
        method: 'POST',
        headers: { ...bearer(adminToken), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'burst' }),
      }),
    );
    const limit = 10;
    const rule = await fetch(`${a.url}/api/v1/tier/burst/rate_limit`, {
      method: 'POST',
      headers: { ...bearer(adminToken), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'burst', path: '/api/v1/items', limit, period: 2 }),
    });
    expect(rule.status).toBe(201);
    const assigned = await fetch(`${a.url}/api/v1/users/${userId}/tier`, {
      method: 'PUT',
      headers: { ...bearer(adminToken), 'content-type': 'application/json' },
      body: JSON.stringify({ tier_id: tier.id }),
    });
    expect(assigned.status).toBe(200);
    const token = await tokenOf(b, 'burst', 'a perfectly fine passphrase');
    // The change reached the other process (Redis pub/sub).
    await eventually(
      async () =>
        (await fetch(`${b.url}/api/v1/items`, { headers: bearer(token) })).headers.get('ratelimit-policy') ===
        `"burst";q=${limit};w=2`,
      3000,
    );

    // Start 700 ms before a window ends (time to spend it) and keep both processes busy for 2.5 s.
    const ms = Date.now() % 2000;
    await new Promise((resolve) => setTimeout(resolve, 2000 - ms - 700 + (ms > 1300 ? 2000 : 0)));
    const until = Date.now() + 2500;
    const answers: Counted[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        while (Date.now() < until) answers.push(await count(worker % 2 ? b : a, '/api/v1/items', bearer(token)));
      }),
    );

    const byReset = new Map<number, Counted[]>();
    for (const answer of answers) byReset.set(answer.reset, [...(byReset.get(answer.reset) ?? []), answer]);
    const windows = [...byReset].sort(([x], [y]) => x - y);
    expect(windows.length).toBeGreaterThanOrEqual(2);
    const allowed = (inWindow: Counted[]) => inWindow.filter((r) => r.status === 200).length;
    // The window the burst began in (the checks above may have spent some of it) is spent...
    expect(allowed(windows[0][1])).toBeLessThanOrEqual(limit);
    expect(windows[0][1].some((r) => r.status === 429)).toBe(true);
    // ...and every later one allows exactly its limit (or every request, when it saw fewer).
    for (const [, inWindow] of windows.slice(1)) expect(allowed(inWindow)).toBe(Math.min(limit, inWindow.length));
    for (const [reset, inWindow] of windows) {
      expect(reset % 2).toBe(0);
      for (const refused of inWindow.filter((r) => r.status === 429)) expect([1, 2]).toContain(refused.retryAfter);
    }
  }, 60_000);
});
