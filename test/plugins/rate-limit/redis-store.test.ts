import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '@crudsmith/rate-limit';
import { createRedisClient, RedisStore } from '@crudsmith/rate-limit/redis';
import { deleteKeys, describeRedis, freePort, testClient, uniquePrefix } from './redis-fixture';

describeRedis('RedisStore against the real Redis', () => {
  const prefix = uniquePrefix();
  let client: Redis;
  let plain: Redis;
  let store: RedisStore;

  beforeAll(async () => {
    client = testClient({ keyPrefix: prefix });
    plain = testClient();
    store = new RedisStore(client);
    await client.ping();
  });
  afterAll(async () => {
    await deleteKeys(prefix);
    await client.quit();
    await plain.quit();
  });

  it('counts under the exact key and sets the expiry on the first hit only', async () => {
    const key = 'ratelimit:7:api_v1_items:1699999200';
    expect(await store.hit(key, 60)).toBe(1);
    expect(await plain.ttl(`${prefix}${key}`)).toBeGreaterThan(58);
    await plain.expire(`${prefix}${key}`, 500);
    expect(await store.hit(key, 60)).toBe(2);
    // A later hit leaves the expiry alone: the window ends when it ends.
    expect(await plain.ttl(`${prefix}${key}`)).toBeGreaterThan(60);
    expect(await plain.get(`${prefix}${key}`)).toBe('2');
  });

  it('counts 200 concurrent hits as 1..200, each exactly once', async () => {
    const counts = await Promise.all(Array.from({ length: 200 }, () => store.hit('ratelimit:burst:p:0', 60)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('keeps an answer that arrived while the event loop was busy past the timeout (no spurious fail-open under load)', async () => {
    const slowLoop = new RedisStore(client, { commandTimeoutMs: 100 });
    await slowLoop.hit('ratelimit:lag:p:0', 60);
    const pending = slowLoop.hit('ratelimit:lag:p:0', 60);
    // Let the command be written, then hold the loop well past the timeout: Redis answers
    // meanwhile, but the reply is read only after the timer is due.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const until = Date.now() + 300;
    while (Date.now() < until) {
      /* a busy process */
    }
    expect(await pending).toBe(2);
  });

  it('is atomic across processes: two connections never see the same count', async () => {
    const other = new RedisStore(testClient({ keyPrefix: prefix }));
    const counts = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).hit('ratelimit:two:p:0', 60)),
    );
    expect(new Set(counts).size).toBe(100);
    expect(Math.max(...counts)).toBe(100);
    await other.client.quit();
  });

  it('costs one round trip per hit (one EVALSHA seen by MONITOR)', async () => {
    await store.hit('ratelimit:warm:p:0', 60); // loads the script once
    const monitor = await plain.monitor();
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((a) => a.startsWith(prefix))) seen.push(args);
    });
    await store.hit('ratelimit:rt:p:0', 60);
    await store.hit('ratelimit:rt:p:0', 60);
    await new Promise((resolve) => setTimeout(resolve, 100));
    monitor.disconnect();
    // The script's own INCR/EXPIRE show up as "lua" entries; the client sent one command per hit.
    expect(seen.filter((args) => args[0].toLowerCase() === 'evalsha' || args[0].toLowerCase() === 'eval')).toHaveLength(
      2,
    );
  });
});

describe('RedisStore when Redis is unreachable', () => {
  it('throws StoreUnavailableError quickly, with the tuned client and with a default one', async () => {
    const port = await freePort();
    for (const client of [
      createRedisClient({ host: '127.0.0.1', port, db: 0 }),
      testClient({ port, lazyConnect: false }),
    ]) {
      client.on('error', () => {});
      const store = new RedisStore(client, { commandTimeoutMs: 300 });
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        await expect(store.hit('ratelimit:x:p:0', 60)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(1000);
      }
      client.disconnect();
    }
  });
});
