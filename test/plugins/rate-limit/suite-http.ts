// The rate-limit plugin over real HTTP, run on every adapter (each adapter's test file
// passes its harness): the same requests must be counted, limited and answered the same
// on Koa, Express and Fastify. The app is plugin-kit's, with its injectable clock.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import type { Principal } from '@crudsmith/core';
import type { Redis } from 'ioredis';
import type { AdapterHarness, MountedServer } from '../../adapters/conformance';
import { buildApp, RecordingStore, startOnRedis } from './plugin-kit';
import { describeRedis, eventually, freePort, startRedisServer, stopRedisServer } from './redis-fixture';

const sqlite = () =>
  knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
const LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

/** Status, the limit headers, and the JSON body of one answer. */
async function call(base: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { headers });
  const text = await res.text();
  const limit = Object.fromEntries(LIMIT_HEADERS.filter((h) => res.headers.has(h)).map((h) => [h, res.headers.get(h)]));
  return {
    status: res.status,
    limit,
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type'),
    body: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text,
  };
}

/** Runs the plugin's HTTP behaviour against `harness`. */
export function rateLimitHttpSuite(harness: AdapterHarness): void {
  describe(`the rate-limit plugin over HTTP on ${harness.name}`, () => {
    const users: Record<string, Principal> = {};
    let knex: Knex;
    let kit: ReturnType<typeof buildApp>;
    let server: MountedServer;
    const get = (path: string, headers?: Record<string, string>) => call(server.url, path, headers);
    const keys = () => (kit.store as RecordingStore).keys;

    beforeEach(async () => {
      knex = sqlite();
      kit = buildApp({ knex }, users);
      await kit.app.start(knex);
      // The test client is the trusted proxy: X-Forwarded-For names the caller.
      server = await harness.mount(kit.app.routes, { trustedProxies: ['127.0.0.1'] });
      kit.clock.ms = 100_000; // window [60, 120)
      for (const key of Object.keys(users)) delete users[key];
    });
    afterEach(async () => {
      await server.close();
      await kit.app.close();
      await knex.destroy();
    });

    it('puts the limit headers on allowed answers of guarded routes, and none elsewhere', async () => {
      const res = await get('/api/v1/items');
      expect(res.status).toBe(200);
      expect(res.limit).toEqual({
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': '2',
        'x-ratelimit-reset': '120',
        'ratelimit-policy': '"default";q=3;w=60',
        ratelimit: '"default";r=2;t=20',
      });
      expect((await get('/health')).limit).toEqual({});
      expect((await get('/api/v1/itemsx')).limit).toEqual({});
    });

    it('answers the (limit+1)th request 429 with a JSON detail, Retry-After and the headers', async () => {
      for (let i = 0; i < 3; i++) expect((await get('/api/v1/items')).status).toBe(200);
      const limited = await get('/api/v1/items');
      expect(limited.status).toBe(429);
      expect(limited.contentType).toMatch(/^application\/json/);
      expect(limited.body).toEqual({ detail: 'Rate limit exceeded' });
      expect(limited.retryAfter).toBe('20');
      expect(limited.limit).toMatchObject({
        'x-ratelimit-remaining': '0',
        'x-ratelimit-limit': '3',
        ratelimit: '"default";r=0;t=20',
      });
      expect(kit.logs.filter((l) => l.level === 'warn')).toHaveLength(1);
    });

    it('keys anonymous callers on the address the trusted proxy names, and the matched route', async () => {
      await get('/api/v1/items', { 'x-forwarded-for': '10.0.0.1' });
      await get('/api/v1/items?page=2&page=3', { 'x-forwarded-for': '10.0.0.1' });
      await get('/api/v1/items', { 'x-forwarded-for': '10.0.0.2' });
      await get('/api/v1/items/a%20b', { 'x-forwarded-for': '10.0.0.1' });
      await get('/api/v1/items/5/missing', { 'x-forwarded-for': '10.0.0.1' });
      // Another spelling of the path matches no route: a 404 before any hook, never a fresh bucket.
      for (const path of ['/API/v1/items', '/api/v1/items/5/6', '/api/v1/items/'])
        expect((await get(path, { 'x-forwarded-for': '10.0.0.1' })).status, path).toBe(404);
      expect(keys()).toEqual([
        'ratelimit:10.0.0.1:api_v1_items:60',
        'ratelimit:10.0.0.1:api_v1_items:60',
        'ratelimit:10.0.0.2:api_v1_items:60',
        'ratelimit:10.0.0.1:api_v1_items_a b:60',
        'ratelimit:10.0.0.1:api_v1_items_5_missing:60',
      ]);
    });

    it("keys a principal on its id and applies its tier's limit for the path", async () => {
      const pro = await kit.limits.tiers.createTier({ name: 'pro' });
      await kit.limits.tiers.createRateLimit('pro', { name: 'items', path: '/api/v1/items', limit: 5, period: 600 });
      users.alice = { id: 7, tierId: pro.id, isSuperuser: false, scopes: [], transport: 'bearer' };
      for (let i = 4; i >= 0; i--) {
        const res = await get('/api/v1/items', { 'x-user': 'alice', 'x-forwarded-for': `10.1.0.${i}` });
        expect(res.limit).toMatchObject({
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': String(i),
          'ratelimit-policy': '"items";q=5;w=600',
        });
      }
      const limited = await get('/api/v1/items', { 'x-user': 'alice' });
      expect(limited.status).toBe(429);
      expect(limited.retryAfter).toBe('500');
      expect(keys()).toContain('ratelimit:7:api_v1_items:0');
    });

    it('guards a route through the limiter dependency alone, and error answers carry the headers', async () => {
      expect((await get('/api/v1/search')).limit).toMatchObject({ 'x-ratelimit-remaining': '2' });
      const missing = await get('/api/v1/items/3/missing');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Item not found' });
      expect(missing.limit).toMatchObject({ 'x-ratelimit-remaining': '2' });
    });

    it('opens a fresh window on the boundary second', async () => {
      kit.clock.ms = 119_500;
      for (let i = 0; i < 3; i++) await get('/api/v1/items');
      expect((await get('/api/v1/items')).retryAfter).toBe('1');
      kit.clock.ms = 120_000;
      expect((await get('/api/v1/items')).limit).toMatchObject({
        'x-ratelimit-remaining': '2',
        'x-ratelimit-reset': '180',
      });
    });
  });

  describeRedis(`the rate-limit plugin over HTTP on ${harness.name}, Redis stopped and restarted`, () => {
    let knex: Knex;
    let port: number;
    const servers: MountedServer[] = [];
    const kits: ReturnType<typeof buildApp>[] = [];
    const clients: Redis[] = [];

    beforeAll(async () => {
      knex = sqlite();
      port = await freePort();
      await startRedisServer(port);
    });
    afterAll(async () => {
      for (const s of servers) await s.close();
      for (const k of kits) await k.app.close();
      for (const c of clients) c.disconnect();
      await knex.destroy();
      stopRedisServer(port, true);
    });

    async function serverWith(failOpen: boolean): Promise<string> {
      const { kit, client } = await startOnRedis(knex, port, failOpen);
      clients.push(client);
      kits.push(kit);
      kit.clock.ms = 100_000;
      const server = await harness.mount(kit.app.routes, {});
      servers.push(server);
      return server.url;
    }

    it('fail open keeps serving, fail closed answers 503; both count again once Redis is back', async () => {
      const open = await serverWith(true);
      const closed = await serverWith(false);
      expect((await call(open, '/api/v1/items')).limit['x-ratelimit-remaining']).toBe('2');
      expect((await call(closed, '/api/v1/items')).limit['x-ratelimit-remaining']).toBe('1');

      stopRedisServer(port);
      await eventually(async () => (await call(closed, '/api/v1/items')).status === 503);
      const unavailable = await call(closed, '/api/v1/items');
      expect(unavailable).toMatchObject({
        status: 503,
        retryAfter: '1',
        body: { detail: 'Rate limiting is unavailable; try again shortly' },
      });
      const started = Date.now();
      const served = await call(open, '/api/v1/items');
      expect(served.status).toBe(200);
      expect(served.limit).toEqual({});
      expect(Date.now() - started).toBeLessThan(1000);

      await startRedisServer(port);
      await eventually(async () => (await call(open, '/api/v1/items')).limit['x-ratelimit-remaining'] !== undefined);
      await eventually(async () => (await call(closed, '/api/v1/items')).status === 200);
    });
  });
}
