import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { migrationSource } from '@crudsmith/core';
import { rateLimitMigrations, TierCache, TierService, type CachedRule } from '@crudsmith/rate-limit';
// Internal: what the tier cache loads.
import { loadRateLimits } from '../../../plugins/rate-limit/src/tiers/tier-service';
import { createRedisClient, RedisInvalidation } from '@crudsmith/rate-limit/redis';
import { openDatabase, type TestDatabase } from '../../fixtures/db';
import { describeRedis, eventually, freePort, startRedisServer, stopRedisServer, testClient } from './redis-fixture';

const defaultPolicy = { limit: 100, period: 3600 };
const rule = (tier_id: number, path: string, limit: number): CachedRule => ({
  tier_id,
  path,
  name: `${tier_id}-${path}`,
  limit,
  period: 60,
});

function counted(rules: CachedRule[]) {
  const calls = { n: 0 };
  const load = async () => {
    calls.n++;
    return [...rules];
  };
  return { calls, load };
}

describe('TierCache', () => {
  it('answers the tier limit of the first listed path, else the default', async () => {
    const { load } = counted([rule(1, 'api_v1_items', 5), rule(1, 'api_v1_items_:id', 7), rule(2, 'api_v1_items', 50)]);
    const cache = new TierCache({ load, defaultPolicy });
    expect(await cache.lookup(1, 'api_v1_items')).toEqual({ name: '1-api_v1_items', limit: 5, period: 60 });
    expect(await cache.lookup(2, ['api_v1_items'])).toMatchObject({ limit: 50 });
    expect(await cache.lookup(1, ['api_v1_items_5', 'api_v1_items_:id'])).toMatchObject({ limit: 7 });
    expect(await cache.lookup(1, 'api_v1_posts')).toEqual({ name: 'default', ...defaultPolicy });
    expect(await cache.lookup(3, 'api_v1_items')).toBe(cache.defaultPolicy);
    expect(await cache.lookup(null, 'api_v1_items')).toBe(cache.defaultPolicy);
  });

  it('reads the table once for any number of lookups, concurrent ones included', async () => {
    const { calls, load } = counted([rule(1, 'a', 5)]);
    const cache = new TierCache({ load, defaultPolicy });
    await Promise.all(Array.from({ length: 50 }, (_, i) => cache.lookup(1, i % 2 ? 'a' : 'b')));
    await cache.lookup(1, 'a');
    expect(calls.n).toBe(1);
    // Anonymous callers never need the table at all.
    const cold = counted([]);
    await new TierCache({ load: cold.load, defaultPolicy }).lookup(null, 'a');
    expect(cold.calls.n).toBe(0);
  });

  it('rereads after invalidate, and never keeps a read that started before it', async () => {
    const rules = [rule(1, 'a', 5)];
    let release: () => void = () => {};
    let slow = false;
    const cache = new TierCache({
      defaultPolicy,
      load: async () => {
        const snapshot = [...rules];
        if (slow) await new Promise<void>((resolve) => (release = resolve));
        return snapshot;
      },
    });
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 5 });
    rules[0] = rule(1, 'a', 6);
    cache.invalidate();
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 6 });

    slow = true;
    cache.invalidate();
    const stale = cache.lookup(1, 'a');
    await new Promise((resolve) => setTimeout(resolve, 5));
    rules[0] = rule(1, 'a', 7);
    cache.invalidate();
    release();
    await stale;
    slow = false;
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 7 });
  });

  it('rereads a snapshot older than maxAgeMs, and keeps serving it while the database fails', async () => {
    let clock = 0;
    let fail = false;
    const rules = [rule(1, 'a', 5)];
    const cache = new TierCache({
      defaultPolicy,
      maxAgeMs: 1000,
      now: () => clock,
      load: async () => (fail ? Promise.reject(new Error('db down')) : [...rules]),
    });
    await cache.warm();
    rules[0] = rule(1, 'a', 9);
    clock = 999;
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 5 });
    clock = 1000;
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 9 });
    fail = true;
    clock = 5000;
    expect(await cache.lookup(1, 'a')).toMatchObject({ limit: 9 });
    cache.invalidate();
    await expect(cache.lookup(1, 'a')).rejects.toThrow('db down');
  });
});

describeRedis('TierCache across processes (Redis pub/sub)', () => {
  let db: TestDatabase;
  const clients: Redis[] = [];
  const buses: RedisInvalidation[] = [];
  const channel = `cs-test:${process.pid}:${Math.random().toString(36).slice(2)}:invalidate`;

  // One "process": its own cache, publisher connection and subscriber connection.
  function process_() {
    const publisher = testClient();
    clients.push(publisher);
    // The clock stands still: a snapshot never ages out, so only the bus can bring a change.
    const cache = new TierCache({ load: () => loadRateLimits(db.knex), defaultPolicy, now: () => 1_000_000 });
    const bus = new RedisInvalidation({ publisher, channel, onInvalidate: () => cache.invalidate() });
    buses.push(bus);
    const tiers = new TierService(db.knex, async () => {
      cache.invalidate();
      await bus.publish();
    });
    return { cache, bus, tiers };
  }

  beforeAll(async () => {
    db = await openDatabase('sqlite');
    await db.knex.migrate.latest({ migrationSource: migrationSource(rateLimitMigrations) });
  });
  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const client of clients) await client.quit();
    await db?.destroy();
  });

  it('a change made through one process applies in the other over the bus, its cache never aging out', async () => {
    const a = process_();
    const b = process_();
    await a.bus.start();
    await b.bus.start();
    const tier = await a.tiers.createTier({ name: 'free' });
    expect(await b.cache.lookup(tier.id, 'api_v1_items')).toMatchObject({ limit: 100 });

    await a.tiers.createRateLimit('free', { name: 'items', path: '/api/v1/items', limit: 3, period: 60 });
    expect(await a.cache.lookup(tier.id, 'api_v1_items')).toMatchObject({ limit: 3 });
    await eventually(async () => (await b.cache.lookup(tier.id, 'api_v1_items')).limit === 3);

    const [limit] = await a.tiers.listRateLimits('free');
    await b.tiers.updateRateLimit('free', limit.id, { limit: 4 });
    await eventually(async () => (await a.cache.lookup(tier.id, 'api_v1_items')).limit === 4);
  });
});

describe('RedisInvalidation across a Redis restart', () => {
  it('drops the cache when its subscriber reconnects, since messages sent meanwhile are lost', async () => {
    const port = await freePort();
    await startRedisServer(port);
    const publisher = createRedisClient({ host: '127.0.0.1', port, db: 0 });
    publisher.on('error', () => {});
    let invalidations = 0;
    const bus = new RedisInvalidation({ publisher, channel: 'c', onInvalidate: () => void invalidations++ });
    try {
      await bus.start();
      await eventually(() => invalidations === 1);
      await bus.publish();
      await eventually(() => invalidations === 2);
      stopRedisServer(port);
      await startRedisServer(port);
      await eventually(() => invalidations === 3);
      // Resubscribed: messages arrive again.
      await eventually(async () => {
        await bus.publish();
        return invalidations >= 4;
      });
    } finally {
      await bus.close();
      publisher.disconnect();
      stopRedisServer(port, true);
    }
  });
});
