import { afterAll } from 'vitest';
import { RedisChallengeStore } from '@crudsmith/account/redis';
import { koaHarness } from '../../adapters/koa-harness';
import { describeRedis, testClient, uniquePrefix } from '../rate-limit/redis-fixture';
import { mfaSuite } from './suite-mfa';

// The two-factor suite with its challenges in Redis (the database keeps enrollments, used
// steps and recovery codes), over Koa and SQLite.
describeRedis('two-factor with challenges in Redis', () => {
  const redis = testClient({ lazyConnect: true });
  const prefix = uniquePrefix();
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  mfaSuite(koaHarness, 'sqlite', { name: 'Redis', challengeStore: new RedisChallengeStore(redis, { prefix }) });
});
