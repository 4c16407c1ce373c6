// Idempotency keys kept in Redis (the `redis` idempotency option) against the real Redis:
// a repeat answers the first answer and writes once, another body or Prefer is a 422, a
// key whose first request still runs is a 409, two concurrent requests create one row,
// and Redis down is a 503 that writes nothing. The store sends one-key commands only, so
// a Cluster client serves it alike. One adapter and engine: the store is neither's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { crudRouter } from '@crudsmith/core';
import { ENGINES } from '../fixtures/db';
import { closedPort } from '../fixtures/ports';
import { koaHarness } from '../adapters/koa-harness';
import { deleteKeys, describeRedis, testClient, uniquePrefix } from '../plugins/rate-limit/redis-fixture';
import { crudEnv, itemOptions, type Api } from './kit';

describeRedis('Idempotency-Key with the keys in Redis', () => {
  const env = crudEnv(koaHarness, ENGINES[0]);
  const prefix = uniquePrefix();
  const redis = testClient({ enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  let api: Api;
  let down: Redis;
  const count = async (name: string) => (await env.knex('items').where({ name })).length;

  beforeAll(async () => {
    await redis.connect();
    down = new Redis({
      port: await closedPort(),
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    down.on('error', () => {});
    const router = (path: string, client: Redis) =>
      crudRouter(itemOptions(env.knex, { path, idempotency: { redis: client, redisPrefix: prefix } }));
    expect(router('/idem', redis).migrations).toBeUndefined();
    api = await env.serve(router('/idem', redis), router('/down', down));
  });
  afterAll(async () => {
    await deleteKeys(prefix);
    redis.disconnect();
    down.disconnect();
  });

  it('replays a repeat and writes once; another body or Prefer is a 422; a running first request a 409', async () => {
    const key = { 'idempotency-key': 'repeat' };
    const first = await api.post('/idem', { name: 'once', price: 1 }, key);
    const again = await api.post('/idem', { price: 1, name: 'once' }, key);
    expect([first.status, again.status, again.body]).toEqual([201, 201, first.body]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('once')).toBe(1);
    expect((await api.post('/idem', { name: 'other' }, key)).body.detail[0].type).toBe('idempotency_key_reused');
    const minimal = await api.post('/idem', { name: 'once', price: 1 }, { ...key, prefer: 'return=minimal' });
    expect(minimal.status).toBe(422);
    // The key's record as a request still running leaves it: a repeat is a 409.
    const [stored] = await redis.keys(`${prefix}*`);
    const record = JSON.parse((await redis.get(stored))!);
    await redis.set(stored, JSON.stringify({ f: record.f, e: record.e }), 'KEEPTTL');
    expect((await api.post('/idem', { name: 'once', price: 1 }, key)).status).toBe(409);
    expect(await redis.pttl(stored)).toBeGreaterThan(0);
  });

  it('creates one row of two concurrent requests with one key; Redis down is a 503 writing nothing', async () => {
    const key = { 'idempotency-key': 'race' };
    const answers = await Promise.all([
      api.post('/idem', { name: 'raced' }, key),
      api.post('/idem', { name: 'raced' }, key),
    ]);
    expect(answers.map((answer) => answer.status)).toContain(201);
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(await count('raced')).toBe(1);
    const unavailable = await api.post('/down', { name: 'lost' }, { 'idempotency-key': 'down' });
    expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await count('lost')).toBe(0);
  });
});
