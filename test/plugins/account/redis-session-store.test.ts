import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createRequest } from '@crudsmith/core/adapter';
import { SessionManager } from '@crudsmith/core/auth';
import { RedisSessionStore } from '@crudsmith/account/redis';

// The Redis session store against the real Redis. Under CI=true an
// unreachable Redis fails the suite rather than skipping it.
const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const reachable =
  spawnSync(
    process.execPath,
    [
      '-e',
      `require('node:net').connect(${Number(url.port || 6379)}, ${JSON.stringify(url.hostname)}).on('connect', () => process.exit(0)).on('error', () => process.exit(1))`,
    ],
    { timeout: 5000 },
  ).status === 0;
const ci = process.env.CI === 'true' || process.env.CI === '1';
const describeRedis = reachable || ci ? describe : describe.skip;

describeRedis('RedisSessionStore with SessionManager', () => {
  let redis: Redis;
  let other: Redis;
  const prefix = `cs-test:${process.pid}:${Date.now().toString(36)}:`;
  let clock = Date.now();
  const manager = (client: () => Redis) =>
    new SessionManager({
      store: new RedisSessionStore(client(), { prefix }),
      idleTimeoutSeconds: 60,
      absoluteTimeoutSeconds: 600,
      touchIntervalSeconds: 1,
      now: () => clock,
    });
  const req = (id: string) =>
    createRequest({
      method: 'GET',
      path: '/',
      query: {},
      headers: {},
      cookies: { cs_session: id },
      body: undefined,
      clientAddress: '::1',
    });

  beforeAll(() => {
    redis = new Redis({ host: url.hostname, port: Number(url.port || 6379), lazyConnect: false });
    other = new Redis({ host: url.hostname, port: Number(url.port || 6379) });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await other.quit();
  });

  it('shares sessions between two processes (two clients), stores only the hash, and expires keys', async () => {
    const one = manager(() => redis);
    const two = manager(() => other);
    const { cookie, session } = await one.create(42, { data: { csrf: 't' } });
    expect(await two.load(req(cookie.value))).toMatchObject({
      userId: '42',
      handle: session.handle,
      data: { csrf: 't' },
    });
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.join(' ')).not.toContain(cookie.value);
    const ttl = await redis.pttl(`${prefix}s:${session.idHash}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('revokes in one process what another process holds; a late write does not revive it', async () => {
    const one = manager(() => redis);
    const two = manager(() => other);
    const { cookie } = await one.create(43);
    const held = (await two.load(req(cookie.value)))!;
    expect(await one.revokeAll(43)).toBe(1);
    held.data.late = true;
    expect(await two.save(held)).toBe(false);
    clock += 2_000;
    expect(await two.load(req(cookie.value))).toBeNull();
    expect(await redis.exists(`${prefix}s:${held.idHash}`)).toBe(0);
  });

  it('lists by user, revokes by handle, keeps the current one, and caps per user', async () => {
    const sessions = new SessionManager({
      store: new RedisSessionStore(redis, { prefix }),
      maxSessionsPerUser: 2,
      now: () => clock,
    });
    const a = await sessions.create(44);
    clock += 1;
    const b = await sessions.create(44);
    clock += 1;
    const c = await sessions.create(44);
    const live = (await sessions.list(44)).map((s) => s.handle).sort();
    expect(live).toEqual([b.session.handle, c.session.handle].sort());
    expect(await sessions.revokeByHandle(44, a.session.handle)).toBe(false);
    expect(await sessions.revokeByHandle(45, b.session.handle)).toBe(false);
    expect(await sessions.revokeByHandle(44, b.session.handle)).toBe(true);
    expect(await sessions.revokeAll(44, { keep: c.session })).toBe(0);
    expect((await sessions.list(44)).map((s) => s.handle)).toEqual([c.session.handle]);
  });
});
