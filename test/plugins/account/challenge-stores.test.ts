// The challenge stores (database on every engine, and Redis) against one contract: a
// challenge is found by its token only, takes at most 5 attempts even when they come at
// once, is used up by exactly one caller, and dies when it expires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisChallengeStore } from '@crudsmith/account/redis';
import { KnexChallengeStore, challengeMigration } from '../../../plugins/account/src/mfa/challenges';
import { challengeContract as contract, NOW, record } from './challenge-contract';
import { ENGINES, openDatabase, type TestDatabase } from '../../fixtures/db';
import { describeRedis, testClient, uniquePrefix } from '../rate-limit/redis-fixture';

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
