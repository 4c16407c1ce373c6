import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import type { Redis } from 'ioredis';
import type { Principal } from '@crudsmith/core';
import { RedisStore } from '@crudsmith/rate-limit/redis';
import { buildApp, startOnRedis } from './plugin-kit';
import {
  deleteKeys,
  describeRedis,
  eventually,
  freePort,
  startRedisServer,
  stopRedisServer,
  testClient,
  uniquePrefix,
} from './redis-fixture';

const sqlite = () =>
  knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });

describeRedis('the plugin on the real Redis, as two processes', () => {
  const prefix = uniquePrefix();
  const channel = `${prefix}invalidate`;
  const users: Record<string, Principal> = {};
  let knex: Knex;
  let clients: Redis[];
  let a: ReturnType<typeof buildApp>;
  let b: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    knex = sqlite();
    clients = [testClient({ keyPrefix: prefix }), testClient({ keyPrefix: prefix })];
    a = buildApp({ knex, store: new RedisStore(clients[0]), channel }, users);
    b = buildApp({ knex, store: new RedisStore(clients[1]), channel }, users);
    await a.app.start(knex);
    await b.app.start(knex);
  });
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    for (const client of clients ?? []) await client.quit();
    await deleteKeys(prefix);
    await knex?.destroy();
  });

  it('shares one counter between the processes', async () => {
    a.clock.ms = b.clock.ms = 100_000;
    expect((await a.get('/api/v1/items', { address: '10.1.1.1' })).headers?.['X-RateLimit-Remaining']).toBe('2');
    expect((await b.get('/api/v1/items', { address: '10.1.1.1' })).headers?.['X-RateLimit-Remaining']).toBe('1');
    expect((await a.get('/api/v1/items', { address: '10.1.1.1' })).status).toBe(200);
    const limited = await b.get('/api/v1/items', { address: '10.1.1.1' });
    expect(limited.status).toBe(429);
    expect(limited.headers?.['Retry-After']).toBe('20');
    const plain = testClient();
    expect(await plain.get(`${prefix}ratelimit:10.1.1.1:api_v1_items:60`)).toBe('4');
    await plain.quit();
  });

  it('applies a limit changed through one process in the other over pub/sub, both clocks stopped', async () => {
    const pro = await a.limits.tiers.createTier({ name: 'pro' });
    users.carol = { id: 21, tierId: pro.id, isSuperuser: false, scopes: [], transport: 'session' };
    a.clock.ms = b.clock.ms = 200_000;
    expect((await b.get('/api/v1/posts', { user: 'carol' })).headers?.['X-RateLimit-Limit']).toBe('3');
    await a.limits.tiers.createRateLimit('pro', { name: 'posts', path: '/api/v1/posts', limit: 30, period: 60 });
    // The clocks stand still, so no cached snapshot ages out: only the message brings the change.
    await eventually(
      async () => (await b.get('/api/v1/posts', { user: 'carol' })).headers?.['X-RateLimit-Limit'] === '30',
    );
  });

  it('leaves the RedisStore it was given, and its client, open when the app closes', async () => {
    const client = testClient({ keyPrefix: prefix });
    const store = new RedisStore(client);
    const c = buildApp({ knex, store, channel }, users);
    try {
      await c.app.start(knex);
      expect(c.limits.store).toBe(store);
      await c.app.close();
      expect(client.status).toBe('ready');
      expect(await store.hit('closed-app', 60)).toBe(1);
    } finally {
      await client.quit();
    }
  });
});

describe('the plugin when Redis is down', () => {
  let knex: Knex;
  const kits: ReturnType<typeof buildApp>[] = [];
  const clients: Redis[] = [];
  let deadPort: number;

  beforeAll(async () => {
    knex = sqlite();
    deadPort = await freePort();
  });
  afterEach(async () => {
    for (const kit of kits.splice(0)) await kit.app.close();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await knex.destroy();
  });

  async function appOn(port: number, failOpen: boolean) {
    const { kit, client } = await startOnRedis(knex, port, failOpen);
    clients.push(client);
    kits.push(kit);
    return kit;
  }

  it('fail open (the default): serves without limit headers, and logs the outage once', async () => {
    const kit = await appOn(deadPort, true);
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const result = await kit.get('/api/v1/items');
      expect(result.status).toBe(200);
      expect(result.headers).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1000);
    }
    const errors = kit.logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toBe('Rate-limit store unavailable; serving requests unlimited');
  });

  it('fail closed: answers 503 with a JSON detail', async () => {
    const kit = await appOn(deadPort, false);
    const result = await kit.get('/api/v1/items');
    expect(result.status).toBe(503);
    expect(result.json).toEqual({ detail: 'Rate limiting is unavailable; try again shortly' });
    expect(result.headers?.['Retry-After']).toBe('1');
  });

  it('both recover when Redis comes back, without recreating the plugin', async () => {
    const port = await freePort();
    await startRedisServer(port);
    try {
      const open = await appOn(port, true);
      const closed = await appOn(port, false);
      open.clock.ms = closed.clock.ms = 100_000;
      expect((await open.get('/api/v1/items')).headers?.['X-RateLimit-Remaining']).toBe('2');
      expect((await closed.get('/api/v1/items')).headers?.['X-RateLimit-Remaining']).toBe('1');

      stopRedisServer(port);
      await eventually(async () => (await closed.get('/api/v1/items')).status === 503);
      const served = await open.get('/api/v1/items');
      expect(served.status).toBe(200);
      expect(served.headers).toBeUndefined();
      expect(open.logs.some((l) => l.level === 'error')).toBe(true);

      await startRedisServer(port);
      // A restarted Redis starts empty, so the counts begin again.
      await eventually(async () => (await open.get('/api/v1/items')).headers?.['X-RateLimit-Remaining'] !== undefined);
      await eventually(async () => (await closed.get('/api/v1/items')).status === 200);
      expect(open.logs.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
        'Rate-limit store answers again',
      ]);
    } finally {
      stopRedisServer(port, true);
    }
  });
});

describeRedis("the plugin's Redis round trips", () => {
  it('costs exactly one Redis round trip per request, allowed or limited (MONITOR on a Redis of its own)', async () => {
    const port = await freePort();
    await startRedisServer(port);
    const knex = sqlite();
    const { kit, client } = await startOnRedis(knex, port, true);
    const plain = testClient({ port });
    try {
      kit.clock.ms = 300_000;
      await kit.get('/api/v1/items', { address: '10.3.3.3' }); // loads the script and the cache
      const monitor = await plain.monitor();
      const seen: string[] = [];
      // What the script runs inside Redis shows up with the source "lua": not a round trip.
      monitor.on(
        'monitor',
        (_time: string, args: string[], source: string) => void (source !== 'lua' && seen.push(args[0].toLowerCase())),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await kit.get(i % 2 ? '/api/v1/items/4' : '/api/v1/items', { address: '10.3.3.3' })).status);
      await new Promise((resolve) => setTimeout(resolve, 150));
      monitor.disconnect();
      // /api/v1/items had one request before (the limit is 3): its third here is the fourth.
      expect(statuses).toEqual([200, 200, 200, 200, 429, 200]);
      expect(seen).toEqual(Array(6).fill('evalsha'));
    } finally {
      plain.disconnect();
      await kit.app.close();
      client.disconnect();
      await knex.destroy();
      stopRedisServer(port, true);
    }
  });
});
