// The challenge stores (database on every engine, and Redis) against one contract: a
// challenge is found by its token only, takes at most 5 attempts even when they come at
// once, is used up by exactly one caller, and dies when it expires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisChallengeStore } from '@crudsmith/account/redis';
import { CHALLENGE_MAX_ATTEMPTS, KnexChallengeStore, challengeMigration, type ChallengeRecord, type ChallengeStore } from '../../../plugins/account/src/challenges';
import { ENGINES, openDatabase, type TestDatabase } from '../../fixtures/db';
import { describeRedis, testClient, uniquePrefix } from '../rate-limit/redis-fixture';

const NOW = 1_700_000_000_000;
const record = (userId = '7'): ChallengeRecord => ({ userId, purpose: 'sign-in', intent: { transport: 'bearer', scope: 'items:read' }, tokenVersion: 3, secret: null, expiresAt: NOW + 300_000 });

function contract(store: () => ChallengeStore): void {
  it('finds a challenge by its token only, and peeking counts nothing', async () => {
    const token = await store().create(record(), NOW);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (let i = 0; i < 10; i++) expect(await store().peek(token, NOW)).toEqual(record());
    expect(await store().peek(`${token}x`, NOW)).toBeNull();
    expect(await store().attempt('unknown', NOW)).toBeNull();
  });

  it(`takes ${CHALLENGE_MAX_ATTEMPTS} attempts, even when 20 come at once`, async () => {
    const token = await store().create(record(), NOW);
    const results = await Promise.all(Array.from({ length: 20 }, () => store().attempt(token, NOW)));
    expect(results.filter(Boolean)).toHaveLength(CHALLENGE_MAX_ATTEMPTS);
    expect(await store().peek(token, NOW)).toBeNull();
    // Out of attempts, but a caller that took the last one may still use it up.
    expect(await store().consume(token, NOW)).toBe(true);
  });

  it('is used up by exactly one of concurrent callers, and then takes no attempt', async () => {
    const token = await store().create(record(), NOW);
    expect(await store().attempt(token, NOW)).toEqual(record());
    const used = await Promise.all(Array.from({ length: 8 }, () => store().consume(token, NOW)));
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(await store().attempt(token, NOW)).toBeNull();
    expect(await store().peek(token, NOW)).toBeNull();
  });

  it('dies when it expires', async () => {
    const token = await store().create(record(), NOW);
    const later = NOW + 300_000;
    expect(await store().peek(token, later)).toBeNull();
    expect(await store().attempt(token, later)).toBeNull();
    expect(await store().consume(token, later)).toBe(false);
  });
}

for (const engine of ENGINES) {
  describe(`KnexChallengeStore on ${engine}`, () => {
    let db: TestDatabase;
    let store: KnexChallengeStore;
    beforeAll(async () => {
      db = await openDatabase(engine);
      await challengeMigration('challenges').up(db.knex);
      store = new KnexChallengeStore(db.knex, 'challenges');
    });
    afterAll(async () => db?.destroy());

    contract(() => store);

    it('stores only the hash of the token', async () => {
      const token = await store.create(record('8'), NOW);
      const rows = await db.knex('challenges').where({ user_id: '8' }).select('id_hash');
      expect(rows).toHaveLength(1);
      expect(rows[0].id_hash).not.toContain(token);
    });
  });
}

describeRedis('RedisChallengeStore', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  let store: RedisChallengeStore;
  beforeAll(() => {
    redis = testClient();
    store = new RedisChallengeStore(redis, { prefix });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  contract(() => store);

  it('keys expire in Redis with the challenge, and hold no token', async () => {
    const token = await store.create({ ...record(), expiresAt: Date.now() + 60_000 }, Date.now());
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.some((key) => key.includes(token))).toBe(false);
    const ttls = await Promise.all(keys.map((key) => redis.pttl(key)));
    expect(ttls.every((ttl) => ttl > 0)).toBe(true);
  });
});
