// The account plugin's Redis stores (sessions, two-factor challenges) on a Redis that goes
// away, staged by a proxy the test controls, through a client with ioredis' defaults
// (offline queue, 20 retries): each operation still ends within the store's
// commandTimeoutMs as a ServiceUnavailableError (503), and works again once Redis is back.
// (Such a client resends what was unanswered when it reconnects, so an operation answered
// 503 may still happen later: the example's client has no offline queue.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ServiceUnavailableError } from '@crudsmith/core';
import { RedisChallengeStore, RedisSessionStore } from '@crudsmith/account/redis';
import type { SessionRecord } from '@crudsmith/core/auth';
import type { ChallengeRecord } from '../../../plugins/account/src/mfa/challenges';
import { TcpProxy } from '../../fixtures/tcp-proxy';
import { describeRedis, REDIS, uniquePrefix } from '../rate-limit/redis-fixture';

const TIMEOUT_MS = 300;
const BOUND_MS = 2000;
const now = Date.now();
const session: SessionRecord = {
  idHash: 'h'.repeat(64),
  handle: 'handle',
  userId: '7',
  data: {},
  createdAt: now,
  lastSeenAt: now,
  idleExpiresAt: now + 60_000,
  absoluteExpiresAt: now + 600_000,
  userAgent: null,
  ipAddress: null,
};
const challenge: ChallengeRecord = {
  userId: '7',
  purpose: 'sign-in',
  intent: { transport: 'bearer', scope: 'items:read' },
  tokenVersion: 0,
  secret: null,
  expiresAt: now + 300_000,
};

async function expectUnavailable(run: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceUnavailableError);
  expect((error as ServiceUnavailableError).status).toBe(503);
  expect(Date.now() - started).toBeLessThan(BOUND_MS);
}

describeRedis("the account plugin's Redis stores with Redis gone", () => {
  let proxy: TcpProxy;
  let redis: Redis;
  let sessions: RedisSessionStore;
  let challenges: RedisChallengeStore;

  beforeAll(async () => {
    proxy = await TcpProxy.start(REDIS);
    redis = new Redis({ host: '127.0.0.1', port: proxy.port, retryStrategy: () => 100 });
    redis.on('error', () => {});
    await new Promise((ready) => redis.once('ready', ready));
    sessions = new RedisSessionStore(redis, { prefix: uniquePrefix(), commandTimeoutMs: TIMEOUT_MS });
    challenges = new RedisChallengeStore(redis, { prefix: uniquePrefix(), commandTimeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    await proxy?.set('forward');
    redis?.disconnect();
    await proxy?.close();
  });

  async function back(): Promise<void> {
    await proxy.set('forward');
    await new Promise((ready) => (redis.status === 'ready' ? ready(null) : redis.once('ready', ready)));
  }

  describe.each(['refuse', 'silent'] as const)('when the route to Redis is %s', (mode) => {
    it('every session-store operation answers 503 in time, and works again once Redis is back', async () => {
      await sessions.insert(session);
      await proxy.set(mode);
      await expectUnavailable(() => sessions.get(session.idHash));
      await expectUnavailable(() => sessions.insert(session));
      await expectUnavailable(() => sessions.update(session.idHash, { lastSeenAt: now + 1 }));
      await expectUnavailable(() => sessions.delete([session.idHash]));
      await expectUnavailable(() => sessions.listByUser('7'));
      await back();
      const again = { ...session, idHash: 'a'.repeat(64) };
      await sessions.insert(again);
      expect(await sessions.get(again.idHash)).toEqual(again);
    });

    it('every challenge-store operation answers 503 in time, and works again once Redis is back', async () => {
      const token = await challenges.create(challenge, now);
      await proxy.set(mode);
      await expectUnavailable(() => challenges.create(challenge, now));
      await expectUnavailable(() => challenges.peek(token, now));
      await expectUnavailable(() => challenges.attempt(token, now));
      await expectUnavailable(() => challenges.consume(token, now));
      await back();
      expect(await challenges.peek(await challenges.create(challenge, now), now)).toEqual(challenge);
    });
  });
});
