// Two example processes (Koa and Fastify) on one PostgreSQL (or MariaDB) and one Redis, each reached
// through a proxy the test controls (the real services keep running: other suites use
// them). A bounded load of reads, writes and session requests runs while both services
// are cut (silent, as behind a network cut), restored, refused and restored again: no
// process crashes, no request hangs past the timeouts, every answer is a success or a
// JSON 503, no write is half done or doubled, and the answers recover without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, SERVER_ENGINES, type TestDatabase } from '../fixtures/db';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { Client } from '../plugins/account/fixture';
import { describeRedis, REDIS, uniquePrefix } from '../plugins/rate-limit/redis-fixture';
import { spawnApp, type AppProcess } from './spawn-app';

const PASSWORD = 'recovering under load';
const TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  DATABASE_ACQUIRE_TIMEOUT_MS: '1500',
  DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  REDIS_CONNECT_TIMEOUT_MS: '500',
  REDIS_COMMAND_TIMEOUT_MS: '500',
};
// The longest any answer may take: the bounds above, with generous room for a loaded machine.
const ANSWER_BOUND_MS = 8000;
const WORKERS = 6;

interface Outcome {
  op: string;
  status: number | 'hang';
  ms: number;
  at: number;
  detail?: unknown;
  name?: string;
}

const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, mysql: 3306 };

describeRedis('two example processes under load while their database and Redis go away and come back', () =>
  describe.runIf(SERVER_ENGINES.length > 0).each(SERVER_ENGINES)('on %s', (engine) => {
    let db: TestDatabase;
    let dbProxy: TcpProxy;
    let redisProxy: TcpProxy;
    let apps: AppProcess[] = [];
    const jar = new Map<string, string>();

    beforeAll(async () => {
      db = await openDatabase(engine);
      const direct = new URL(db.url!);
      dbProxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || DEFAULT_PORTS[engine]) });
      redisProxy = await TcpProxy.start(REDIS);
      const proxied = new URL(direct);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(dbProxy.port);
      const env = {
        ...TIMEOUTS,
        DATABASE_URL: proxied.toString(),
        REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
        REDIS_SESSION_PREFIX: `${uniquePrefix()}session:`,
        DEFAULT_RATE_LIMIT_LIMIT: '1000000',
        LOG_LEVEL: 'warn',
        SECRET_KEY: 'outage-recovery-secret-0123456789abcdef',
      };
      // One after the other: the first migrates.
      apps = [await spawnApp({ ...env, ADAPTER: 'koa' }, 60_000)];
      apps.push(await spawnApp({ ...env, ADAPTER: 'fastify' }, 60_000));
      const registered = await new Client(apps[0].url).request('POST', '/auth/register', {
        json: { username: 'steady', email: 'steady@example.com', password: PASSWORD },
      });
      expect(registered.status).toBe(201);
      expect((await new Client(apps[0].url, jar).login('steady', PASSWORD)).status).toBe(200);
    }, 150_000);
    afterAll(async () => {
      await dbProxy?.set('forward');
      for (const app of apps) await app.stop();
      await dbProxy?.close();
      await redisProxy?.close();
      await db?.destroy();
    });

    it('never crashes, hangs, answers a 500 or half-writes, and recovers without a restart', async () => {
      const outcomes: Outcome[] = [];
      const started = Date.now();
      let stop = false;
      let serial = 0;

      async function one(base: string, op: string): Promise<void> {
        const name = op === 'create' ? `load-${++serial}` : undefined;
        const client = new Client(base, op === 'me' ? jar : new Map());
        const at = Date.now();
        const request =
          op === 'list'
            ? client.get('/api/v1/items?limit=5')
            : op === 'create'
              ? client.request('POST', '/api/v1/items', { json: { name, description: `written by ${name}`, price: 1 } })
              : client.get('/auth/me');
        const answer = await Promise.race([
          request,
          new Promise<'hang'>((done) => setTimeout(() => done('hang'), ANSWER_BOUND_MS + 5000)),
        ]);
        if (answer === 'hang') outcomes.push({ op, status: 'hang', ms: Date.now() - at, at: at - started, name });
        else
          outcomes.push({
            op,
            status: answer.status,
            ms: Date.now() - at,
            at: at - started,
            detail: answer.body?.detail,
            name,
          });
      }

      async function worker(index: number): Promise<void> {
        const ops = ['list', 'create', 'me'];
        for (let i = index; !stop; i++) await one(apps[i % 2].url, ops[i % 3]);
      }

      const load = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
      const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));
      // Each phase outlasts the bounds above (at most 1.5 s to a 503) by enough for every
      // worker to meet it at least once.
      await wait(1000);
      const cut = Date.now() - started;
      await Promise.all([dbProxy.set('silent'), redisProxy.set('silent')]);
      await wait(3000);
      await Promise.all([dbProxy.set('forward'), redisProxy.set('forward')]);
      await wait(2000);
      await Promise.all([dbProxy.set('refuse'), redisProxy.set('refuse')]);
      await wait(2000);
      await Promise.all([dbProxy.set('forward'), redisProxy.set('forward')]);
      const restored = Date.now() - started;
      await wait(7000);
      stop = true;
      await load;

      // Every answer: a success or a JSON 503 with a detail, in time; never a 500 or a hang.
      const statuses = new Set(outcomes.map((o) => o.status));
      expect([...statuses].filter((s) => ![200, 201, 503].includes(s as number))).toEqual([]);
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(ANSWER_BOUND_MS);
      for (const o of outcomes.filter((x) => x.status === 503)) expect(typeof o.detail).toBe('string');
      // The outage was seen, on both kinds of request.
      const during = outcomes.filter((o) => o.at > cut && o.at < restored);
      expect(during.filter((o) => o.status === 503 && o.op === 'list').length).toBeGreaterThan(0);
      expect(during.filter((o) => o.status === 503 && o.op === 'me').length).toBeGreaterThan(0);
      // Recovered without a restart: the last seconds all succeed, on both processes.
      // (ioredis retries at least every second; a loaded machine gets some more room.)
      const late = outcomes.filter((o) => o.at > restored + 4000);
      expect(late.length).toBeGreaterThan(10);
      expect(late.filter((o) => o.status === 503)).toEqual([]);

      // No write half done or doubled: each created item exists once, as written; a 503'd create at most once.
      const rows: { name: string; description: string }[] = await db
        .knex('items')
        .where('name', 'like', 'load-%')
        .select('name', 'description');
      const byName = new Map<string, number>();
      for (const row of rows) {
        expect(row.description).toBe(`written by ${row.name}`);
        byName.set(row.name, (byName.get(row.name) ?? 0) + 1);
      }
      expect([...byName.values()].filter((n) => n > 1)).toEqual([]);
      for (const o of outcomes.filter((x) => x.op === 'create' && x.status === 201))
        expect(byName.get(o.name!)).toBe(1);

      // Both processes still serve, and logged the outage in a few lines, not one per failed request.
      for (const app of apps) {
        expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
        const lines = app.output().split('\n');
        expect(lines.filter((line) => line.includes('Unhandled error event'))).toEqual([]);
        // The outage reports (the request log has its own line per request, by design).
        const outageLines = lines.filter((line) => /"msg":"[^"]* unavailable \(/.test(line));
        expect(outageLines.length).toBeGreaterThan(0);
        expect(outageLines.length, outageLines.join('\n')).toBeLessThan(6);
      }
    }, 90_000);
  }),
);
