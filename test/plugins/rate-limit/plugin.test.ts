import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import knexFactory from 'knex';
import { ConfigurationError, type Principal } from '@crudsmith/core';
import { MemoryStore, rateLimit, type RateLimitStore } from '@crudsmith/rate-limit';
import { buildApp, RecordingStore } from './plugin-kit';

const user = (id: number, tierId: number | null): Principal => ({
  id,
  tierId,
  isSuperuser: false,
  scopes: [],
  transport: 'bearer',
});

describe('the rate-limit plugin through bootstrap', () => {
  let knex: Knex;
  let kit: ReturnType<typeof buildApp>;
  const users: Record<string, Principal> = {};

  beforeEach(async () => {
    knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    kit = buildApp({ knex }, users);
    await kit.app.start(knex);
    for (const key of Object.keys(users)) delete users[key];
  });
  afterEach(async () => {
    await kit.app.close();
    await knex.destroy();
  });

  it('adds the limit headers to allowed responses on guarded paths', async () => {
    kit.clock.ms = 100_000; // window [60, 120): resets at 120
    const result = await kit.get('/api/v1/items');
    expect(result.status).toBe(200);
    expect(result.headers).toEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': '120',
      'RateLimit-Policy': '"default";q=3;w=60',
      RateLimit: '"default";r=2;t=20',
    });
    expect((await kit.get('/health')).headers).toBeUndefined();
    expect((await kit.get('/api/v1/itemsx')).headers).toBeUndefined();
  });

  it('answers the (limit+1)th request 429 with Retry-After and a JSON detail, without running the handler', async () => {
    kit.clock.ms = 100_000;
    for (let i = 0; i < 3; i++) expect((await kit.get('/api/v1/items')).status).toBe(200);
    const limited = await kit.get('/api/v1/items');
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ detail: 'Rate limit exceeded' });
    expect(limited.headers).toMatchObject({
      'Retry-After': '20',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Limit': '3',
      RateLimit: '"default";r=0;t=20',
    });
  });

  it('keys anonymous requests on the client address and the matched route (query and trailing slash do not count)', async () => {
    kit.clock.ms = 100_000;
    await kit.get('/api/v1/items', { address: '10.0.0.1' });
    await kit.get('/api/v1/items/', { address: '10.0.0.1', query: { page: '2' } });
    await kit.get('/api/v1/items', { address: '::1' });
    await kit.get('/api/v1/items/5', { address: '10.0.0.1' });
    expect((kit.store as RecordingStore).keys).toEqual([
      'ratelimit:10.0.0.1:api_v1_items:60',
      'ratelimit:10.0.0.1:api_v1_items:60',
      'ratelimit:::1:api_v1_items:60',
      'ratelimit:10.0.0.1:api_v1_items_5:60',
    ]);
    expect((await kit.get('/api/v1/items', { address: '10.0.0.1' })).headers?.['X-RateLimit-Remaining']).toBe('0');
    expect((await kit.get('/api/v1/items', { address: '10.0.0.2' })).headers?.['X-RateLimit-Remaining']).toBe('2');
  });

  it('gives every spelling of one integer id the same budget', async () => {
    kit.clock.ms = 100_000;
    expect((await kit.get('/api/v1/items/1')).status).toBe(200);
    expect((await kit.get('/api/v1/items/01')).status).toBe(200);
    expect((await kit.get('/api/v1/items/+1')).status).toBe(200);
    for (const id of ['001', '+001', '1']) expect((await kit.get(`/api/v1/items/${id}`)).status).toBe(429);
    expect(new Set((kit.store as RecordingStore).keys)).toEqual(new Set(['ratelimit:127.0.0.1:api_v1_items_1:60']));
  });

  it('keys authenticated requests on the principal id and applies the tier limit of the path', async () => {
    const pro = await kit.limits.tiers.createTier({ name: 'pro' });
    await kit.limits.tiers.createRateLimit('pro', { name: 'items', path: '/api/v1/items', limit: 5, period: 600 });
    await kit.limits.tiers.createRateLimit('pro', {
      name: 'one item',
      path: '/api/v1/items/:id',
      limit: 1,
      period: 60,
    });
    users.alice = user(7, pro.id);
    users.bob = user(8, null);
    kit.clock.ms = 100_000;

    const first = await kit.get('/api/v1/items', { user: 'alice', address: '10.0.0.1' });
    expect(first.headers).toMatchObject({
      'X-RateLimit-Limit': '5',
      'RateLimit-Policy': '"items";q=5;w=600',
      'X-RateLimit-Reset': '600',
    });
    // Same user from another address: the same bucket.
    for (let i = 0; i < 4; i++)
      expect((await kit.get('/api/v1/items', { user: 'alice', address: `10.0.0.${i + 2}` })).status).toBe(200);
    expect((await kit.get('/api/v1/items', { user: 'alice' })).status).toBe(429);
    // The tier lists no limit for posts: the default applies there.
    expect((await kit.get('/api/v1/posts', { user: 'alice' })).headers).toMatchObject({ 'X-RateLimit-Limit': '3' });
    // A limit on the route pattern covers every id, each counted apart.
    expect((await kit.get('/api/v1/items/1', { user: 'alice' })).status).toBe(200);
    expect((await kit.get('/api/v1/items/1', { user: 'alice' })).status).toBe(429);
    expect((await kit.get('/api/v1/items/2', { user: 'alice' })).status).toBe(200);
    // A user without a tier: the default limit, on their own id.
    expect((await kit.get('/api/v1/items', { user: 'bob' })).headers).toMatchObject({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
    });
    expect((kit.store as RecordingStore).keys).toContain('ratelimit:7:api_v1_items:0');
    expect((kit.store as RecordingStore).keys).toContain('ratelimit:8:api_v1_items:60');
  });

  it("keys a principal with a rateLimitKey (an API key) on it, apart from its owner's other requests, at its own tier", async () => {
    const pro = await kit.limits.tiers.createTier({ name: 'pro' });
    await kit.limits.tiers.createRateLimit('pro', { name: 'items', path: '/api/v1/items', limit: 5, period: 600 });
    // One user (id 7): in person with no tier, and by two keys, one of them in the pro tier.
    users.person = user(7, null);
    users.plain = { ...user(7, null), transport: 'api-key', rateLimitKey: 'api-key:1' };
    users.pro = { ...user(7, pro.id), transport: 'api-key', rateLimitKey: 'api-key:2' };
    kit.clock.ms = 100_000;
    for (let i = 0; i < 3; i++) expect((await kit.get('/api/v1/items', { user: 'person' })).status).toBe(200);
    expect((await kit.get('/api/v1/items', { user: 'person' })).status).toBe(429);
    // Each key has its own budget: the owner's spent one does not count against it.
    expect((await kit.get('/api/v1/items', { user: 'plain' })).headers).toMatchObject({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
    });
    expect((await kit.get('/api/v1/items', { user: 'pro' })).headers).toMatchObject({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
    });
    expect((kit.store as RecordingStore).keys).toEqual(
      expect.arrayContaining([
        'ratelimit:7:api_v1_items:60',
        'ratelimit:api-key:1:api_v1_items:60',
        'ratelimit:api-key:2:api_v1_items:0',
      ]),
    );
  });

  it('applies a tier limit to the paths beneath its path, as `paths` guards them; the most specific limit wins', async () => {
    const pro = await kit.limits.tiers.createTier({ name: 'pro' });
    await kit.limits.tiers.createRateLimit('pro', { name: 'api', path: '/api', limit: 9, period: 60 });
    await kit.limits.tiers.createRateLimit('pro', { name: 'items', path: '/api/v1/items', limit: 5, period: 60 });
    await kit.limits.tiers.createRateLimit('pro', { name: 'item 2', path: '/api/v1/items/2', limit: 4, period: 60 });
    users.alice = user(7, pro.id);
    kit.clock.ms = 100_000;
    const limitOn = async (path: string) => (await kit.get(path, { user: 'alice' })).headers?.['X-RateLimit-Limit'];
    expect(await limitOn('/api/v1/items')).toBe('5');
    expect(await limitOn('/api/v1/items/1')).toBe('5');
    expect(await limitOn('/api/v1/items/1/missing')).toBe('5');
    expect(await limitOn('/api/v1/items/2')).toBe('4');
    expect(await limitOn('/api/v1/posts')).toBe('9');
    // Each path keeps its own count (the first read above was one) under the limit that covers it.
    for (let i = 0; i < 4; i++) expect((await kit.get('/api/v1/items/1', { user: 'alice' })).status).toBe(200);
    expect((await kit.get('/api/v1/items/1', { user: 'alice' })).status).toBe(429);
    expect((await kit.get('/api/v1/items/3', { user: 'alice' })).status).toBe(200);
  });

  it('warns at startup of each stored tier limit that no limited route can be counted under', async () => {
    await kit.limits.tiers.createTier({ name: 'pro' });
    const paths = [
      '/api/v1/orders',
      '/svc/api/v1/items/7',
      '/api/v1/items/:id',
      '/api/v1/itemsx',
      '/api/v1/search',
      '/api/v1/item',
    ];
    for (const path of paths) await kit.limits.tiers.createRateLimit('pro', { name: path, path, limit: 5, period: 60 });
    const again = buildApp({ knex });
    await again.app.start(knex);
    const warned = again.logs.filter((log) => log.level === 'warn').map((log) => log.details?.path);
    expect(warned.sort()).toEqual(['api_v1_item', 'api_v1_itemsx', 'api_v1_orders']);
    await again.app.close();
  });

  it('opens a fresh window on the boundary second, and a burst across it is split between the two', async () => {
    kit.clock.ms = 119_000;
    for (let i = 0; i < 3; i++) expect((await kit.get('/api/v1/items')).status).toBe(200);
    const limited = await kit.get('/api/v1/items');
    expect(limited.status).toBe(429);
    expect(limited.headers?.['Retry-After']).toBe('1');
    kit.clock.ms = 120_000;
    const next = await kit.get('/api/v1/items');
    expect(next.status).toBe(200);
    expect(next.headers).toMatchObject({ 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': '180' });
    kit.clock.ms = 179_999;
    await kit.get('/api/v1/items');
    await kit.get('/api/v1/items');
    expect((await kit.get('/api/v1/items')).status).toBe(429);
  });

  it('logs each violation as a warning with user id, path, client address and user agent', async () => {
    users.alice = user(7, null);
    for (let i = 0; i < 4; i++)
      await kit.get('/api/v1/items/9', { user: 'alice', address: '203.0.113.9', userAgent: 'curl/8.5' });
    await kit.get('/api/v1/items', { address: '198.51.100.1' });
    expect(kit.logs).toEqual([
      {
        level: 'warn',
        message: 'Rate limit exceeded',
        details: {
          userId: '7',
          path: '/api/v1/items/9',
          clientAddress: '203.0.113.9',
          userAgent: 'curl/8.5',
          limit: 3,
          period: 60,
        },
      },
    ]);
  });

  it('guards a route through the limiter dependency alone, and counts a doubly guarded route once', async () => {
    kit.clock.ms = 100_000;
    const search = await kit.get('/api/v1/search');
    expect(search.headers).toMatchObject({ 'X-RateLimit-Remaining': '2' });
    const posts = await kit.get('/api/v1/posts');
    expect(posts.headers).toMatchObject({ 'X-RateLimit-Remaining': '2' });
    expect((kit.store as RecordingStore).keys).toEqual([
      'ratelimit:127.0.0.1:api_v1_search:60',
      'ratelimit:127.0.0.1:api_v1_posts:60',
    ]);
  });

  it('puts the headers on error answers of guarded routes too', async () => {
    const missing = await kit.get('/api/v1/items/3/missing');
    expect(missing.status).toBe(404);
    expect(missing.headers).toMatchObject({ 'X-RateLimit-Remaining': '2' });
  });

  it('costs one store round trip and no database query per request once warm, limited or not', async () => {
    const pro = await kit.limits.tiers.createTier({ name: 'pro' });
    await kit.limits.tiers.createRateLimit('pro', { name: 'items', path: 'api/v1/items', limit: 1, period: 60 });
    users.alice = user(7, pro.id);
    await kit.get('/api/v1/items', { user: 'alice' }); // warms the cache after the change
    let queries = 0;
    knex.on('query', () => void queries++);
    const before = (kit.store as RecordingStore).keys.length;
    const limited = await kit.get('/api/v1/items', { user: 'alice' });
    expect(limited.status).toBe(429);
    await kit.get('/api/v1/items', { address: '10.9.9.9' });
    expect((kit.store as RecordingStore).keys.length - before).toBe(2);
    expect(queries).toBe(0);
  });

  it('applies a changed limit at once in this process', async () => {
    const pro = await kit.limits.tiers.createTier({ name: 'pro' });
    users.alice = user(7, pro.id);
    expect((await kit.get('/api/v1/items', { user: 'alice' })).headers?.['X-RateLimit-Limit']).toBe('3');
    const limit = await kit.limits.tiers.createRateLimit('pro', {
      name: 'items',
      path: 'api/v1/items',
      limit: 50,
      period: 60,
    });
    expect((await kit.get('/api/v1/items', { user: 'alice' })).headers?.['X-RateLimit-Limit']).toBe('50');
    await kit.limits.tiers.updateRateLimit('pro', limit.id, { limit: 40 });
    expect((await kit.get('/api/v1/items', { user: 'alice' })).headers?.['X-RateLimit-Limit']).toBe('40');
  });
});

describe('rateLimit({ store })', () => {
  it("refuses anything but 'memory' or a RateLimitStore, and points an ioredis client at RedisStore", async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    try {
      // What an ioredis client looks like to the plugin: no `hit`.
      const client = { defineCommand() {}, duplicate() {} } as unknown as RateLimitStore;
      expect(() => rateLimit({ knex, store: client })).toThrow(ConfigurationError);
      expect(() => rateLimit({ knex, store: client })).toThrow(
        'new RedisStore(client) from @crudsmith/rate-limit/redis',
      );
      expect(() => rateLimit({ knex, store: 'redis' as 'memory' })).toThrow(ConfigurationError);
    } finally {
      await knex.destroy();
    }
  });
});

describe('a memory store full of spent windows', () => {
  it('answers a new caller 503 with Retry-After even failing open, while callers it holds are counted as before', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    const clock = { ms: 100_000 };
    const store = new MemoryStore({ maxKeys: 2, now: () => clock.ms });
    const kit = buildApp({ knex, store, failOpen: true, now: () => clock.ms });
    try {
      await kit.app.start(knex);
      kit.clock.ms = clock.ms;
      for (const address of ['10.0.0.1', '10.0.0.2']) {
        for (let i = 0; i < 3; i++) expect((await kit.get('/api/v1/items', { address })).status).toBe(200);
      }
      const refused = await kit.get('/api/v1/items', { address: '10.0.0.3' });
      expect(refused.status).toBe(503);
      // The store keeps a window period seconds from its first hit, as Redis's EXPIRE does.
      expect(refused.headers?.['Retry-After']).toBe('60');
      expect(kit.logs.at(-1)).toMatchObject({
        level: 'error',
        message: 'Rate-limit store is full of spent windows; answering 503 to new callers',
      });
      expect((await kit.get('/api/v1/items', { address: '10.0.0.1' })).status).toBe(429);
      // The stored windows end: room again.
      clock.ms = kit.clock.ms = 160_000;
      expect((await kit.get('/api/v1/items', { address: '10.0.0.3' })).status).toBe(200);
    } finally {
      await kit.app.close();
      await store.close();
      await knex.destroy();
    }
  });
});
