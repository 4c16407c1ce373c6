// Every Redis use on a real Redis Cluster (three masters, three replicas, started here on
// ports of its own): sessions, two-factor challenges, rate-limit counters, the tier
// cache's pub/sub and idempotency keys. No command may span two slots (CROSSSLOT), and a master killed under
// load is replaced by its replica without losing a session or holding a request.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { crudRouter, ServiceUnavailableError } from '@crudsmith/core';
import { createRequest } from '@crudsmith/core/adapter';
import { SessionManager } from '@crudsmith/core/auth';
import { RedisChallengeStore, RedisSessionStore } from '@crudsmith/account/redis';
import { clusterNodes } from '@crudsmith/rate-limit';
import { createRedisClient, RedisInvalidation, RedisStore } from '@crudsmith/rate-limit/redis';
import { openSessionStore } from '../../examples/app/src/session-store';
import { startRedisCluster, type TestRedisCluster } from '../fixtures/redis-cluster';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { challengeContract } from './account/challenge-contract';
import { eventually, uniquePrefix } from './rate-limit/redis-fixture';
import { openDatabase } from '../fixtures/db';
import { createSchema } from '../fixtures/models';
import { itemOptions } from '../crud/kit';

let cluster: TestRedisCluster;
let redis: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = cluster.client();
});
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

// Every key under `prefix` on every master (KEYS on a cluster client asks one node only).
async function keysOf(client: Cluster, prefix: string): Promise<string[]> {
  const perNode = await Promise.all(client.nodes('master').map((node) => node.keys(`${prefix}*`)));
  return perNode.flat();
}

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

describe('RedisSessionStore on Redis Cluster', () => {
  const prefix = uniquePrefix();
  let clock = Date.now();
  const manager = (client: Cluster, options: { max?: number } = {}) =>
    new SessionManager({
      store: new RedisSessionStore(client, { prefix }),
      idleTimeoutSeconds: 60,
      absoluteTimeoutSeconds: 600,
      touchIntervalSeconds: 1,
      maxSessionsPerUser: options.max,
      now: () => clock,
    });

  it('shares sessions between two processes (two cluster clients), keys spread over slots, and expiring', async () => {
    const other = cluster.client();
    try {
      const one = manager(redis);
      const two = manager(other);
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, i) => one.create(100 + i, { data: { csrf: `t${i}` } })),
      );
      for (const [i, { cookie, session }] of created.entries()) {
        expect(await two.load(req(cookie.value))).toMatchObject({
          userId: String(100 + i),
          handle: session.handle,
          data: { csrf: `t${i}` },
        });
      }
      const keys = await keysOf(redis, prefix);
      // Spread over several masters: the store never relied on one node holding them all.
      const slots = new Set(await Promise.all(keys.map((key) => redis.cluster('KEYSLOT', key))));
      expect(slots.size).toBeGreaterThan(3);
      expect(await redis.pttl(`${prefix}s:${created[0].session.idHash}`)).toBeGreaterThan(0);
    } finally {
      other.disconnect();
    }
  });

  it('revokes in one process what another holds, lists, caps and revokes all of a user (no CROSSSLOT)', async () => {
    const other = cluster.client();
    try {
      const one = manager(redis, { max: 2 });
      const two = manager(other, { max: 2 });
      const a = await one.create(7);
      clock += 1;
      const b = await two.create(7);
      clock += 1;
      const c = await one.create(7);
      expect((await two.list(7)).map((s) => s.handle).sort()).toEqual([b.session.handle, c.session.handle].sort());
      expect(await two.load(req(a.cookie.value))).toBeNull();
      const held = (await two.load(req(b.cookie.value)))!;
      expect(await one.revokeAll(7)).toBe(2);
      held.data.late = true;
      expect(await two.save(held)).toBe(false);
      expect(await two.load(req(c.cookie.value))).toBeNull();
      expect(await one.list(7)).toEqual([]);
    } finally {
      other.disconnect();
    }
  });
});

describe('RedisChallengeStore on Redis Cluster', () => {
  let store: RedisChallengeStore;
  beforeAll(() => {
    store = new RedisChallengeStore(redis, { prefix: uniquePrefix() });
  });
  challengeContract(() => store);
});

describe('idempotency keys on Redis Cluster', () => {
  it('lets one request of each pair with one key create its row, the keys spread over slots', async () => {
    const db = await openDatabase('sqlite');
    try {
      await createSchema(db.knex);
      const prefix = uniquePrefix();
      const options = itemOptions(db.knex, { idempotency: { redis, redisPrefix: prefix } });
      const create = crudRouter(options).routes.find((route) => route.operation === 'items_create')!;
      const post = (name: string) =>
        create.handler(
          createRequest({
            method: 'POST',
            path: '/items',
            query: {},
            headers: { 'content-type': 'application/json', 'idempotency-key': name },
            cookies: {},
            body: { name },
            clientAddress: '::1',
          }),
        );
      const names = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
      // Each pair: one creates, the other replays its answer or finds the first still running (409).
      const answers = await Promise.allSettled(names.flatMap((name) => [post(name), post(name)]));
      expect(answers.filter((answer) => answer.status === 'fulfilled').length).toBeGreaterThanOrEqual(names.length);
      expect(Number((await db.knex('items').whereIn('name', names).count({ n: '*' }))[0].n)).toBe(names.length);
      expect(await keysOf(redis, prefix)).toHaveLength(names.length);
      const perMaster = await Promise.all(redis.nodes('master').map((node) => node.keys(`${prefix}*`)));
      expect(perMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    } finally {
      await db.destroy();
    }
  });
});

describe('rate-limit counters and tier changes on Redis Cluster', () => {
  it('counts concurrent hits exactly once per key through a client from KVSTORE_RATE_LIMITER_CLUSTER_NODES', async () => {
    const client = createRedisClient({
      cluster: clusterNodes(cluster.nodesSetting, 'KVSTORE_RATE_LIMITER_CLUSTER_NODES'),
    });
    try {
      await new Promise((ready) => client.once('ready', ready));
      const store = new RedisStore(client);
      const prefix = uniquePrefix();
      const keys = Array.from({ length: 6 }, (_, i) => `${prefix}ratelimit:${i}:p:0`);
      const counts = await Promise.all(
        keys.flatMap((key) => Array.from({ length: 50 }, () => store.hit(key, 60).then((n) => [key, n] as const))),
      );
      for (const key of keys)
        expect(
          counts
            .filter(([k]) => k === key)
            .map(([, n]) => n)
            .sort((x, y) => x - y),
        ).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await redis.ttl(keys[0])).toBeGreaterThan(58);
    } finally {
      client.disconnect();
    }
  });

  it('carries a limit change to another process over the cluster pub/sub', async () => {
    const publisherClient = createRedisClient({ cluster: cluster.nodes });
    const listenerClient = createRedisClient({ cluster: cluster.nodes });
    let heard = 0;
    const channel = `${uniquePrefix()}invalidate`;
    const publisher = new RedisInvalidation({ publisher: publisherClient, channel, onInvalidate: () => {} });
    const listener = new RedisInvalidation({ publisher: listenerClient, channel, onInvalidate: () => void heard++ });
    try {
      await listener.start();
      const before = heard;
      await publisher.publish();
      await eventually(() => heard > before, 3000);
    } finally {
      await listener.close();
      publisherClient.disconnect();
      listenerClient.disconnect();
    }
  });
});

describe('a cluster whose traffic is silently dropped', () => {
  it('turns session, challenge and counter operations into 503 within the command timeout, and recovers without a restart', async () => {
    const commandMs = 500;
    // Every node behind a proxy the test controls; the clients reach the nodes the cluster
    // announces through them (natMap).
    const proxies = await Promise.all(cluster.nodes.map((node) => TcpProxy.start(node)));
    const natMap = Object.fromEntries(
      cluster.nodes.map((node, i) => [`${node.host}:${node.port}`, { host: '127.0.0.1', port: proxies[i].port }]),
    );
    const through = proxies.map((proxy) => ({ host: '127.0.0.1', port: proxy.port }));
    const opened = openSessionStore({ cluster: through }, uniquePrefix(), { timeouts: { commandMs } })!;
    const client = opened.client as Cluster;
    client.options.natMap = natMap;
    const counters = createRedisClient({ cluster: through }, { commandTimeout: commandMs });
    counters.options.natMap = natMap;
    try {
      await Promise.all(
        [client, counters].map(
          (c) => new Promise((ready) => (c.status === 'ready' ? ready(undefined) : c.once('ready', ready))),
        ),
      );
      const sessions = new SessionManager({
        store: opened.store,
        idleTimeoutSeconds: 600,
        absoluteTimeoutSeconds: 600,
      });
      const challenges = new RedisChallengeStore(client, { commandTimeoutMs: commandMs, prefix: uniquePrefix() });
      const limiter = new RedisStore(counters, { commandTimeoutMs: commandMs });
      const { cookie } = await sessions.create(77);
      expect(await limiter.hit(`${uniquePrefix()}k`, 60)).toBe(1);

      await Promise.all(proxies.map((proxy) => proxy.set('silent')));
      for (const run of [
        () => sessions.load(req(cookie.value)),
        () => sessions.create(78),
        () => challenges.peek('t', Date.now()),
      ]) {
        const started = Date.now();
        const error = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect((error as ServiceUnavailableError).headers['Retry-After']).toBe('1');
        expect(Date.now() - started).toBeLessThan(commandMs + 750);
      }
      const started = Date.now();
      await expect(limiter.hit(`${uniquePrefix()}k`, 60)).rejects.toThrow(/Redis/);
      expect(Date.now() - started).toBeLessThan(commandMs + 750);

      await Promise.all(proxies.map((proxy) => proxy.set('forward')));
      await eventually(async () => (await sessions.load(req(cookie.value)).catch(() => null))?.userId === '77', 10_000);
      await eventually(async () => (await limiter.hit(`${uniquePrefix()}k`, 60).catch(() => 0)) === 1, 10_000);
    } finally {
      await opened.close();
      counters.disconnect();
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  });
});

describe('a master killed under load', () => {
  it('is replaced by its replica: requests answer in time (503 at worst), recover without a restart, and no session is lost', async () => {
    const commandMs = 1000;
    const opened = openSessionStore({ cluster: cluster.nodes }, uniquePrefix(), { timeouts: { commandMs } })!;
    const client = opened.client as Cluster;
    await new Promise((ready) => (client.status === 'ready' ? ready(undefined) : client.once('ready', ready)));
    const prefix = uniquePrefix();
    // The example's client, with WAIT for one replica: an answered sign-in survives the failover.
    const store = new RedisSessionStore(client, { prefix, commandTimeoutMs: commandMs, replicas: 1 });
    const sessions = new SessionManager({ store, idleTimeoutSeconds: 600, absoluteTimeoutSeconds: 600 });
    try {
      const written = await Promise.all(Array.from({ length: 30 }, (_, i) => sessions.create(1000 + i)));
      // How long this (shared, busy) machine held the event loop meanwhile: no timeout can fire during that.
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      let stop = false;
      const outcomes: { ms: number; ok: boolean }[] = [];
      const load = (async () => {
        while (!stop) {
          await Promise.all(
            written.slice(0, 10).map(async ({ session }) => {
              const started = Date.now();
              try {
                await store.get(session.idHash);
                outcomes.push({ ms: Date.now() - started, ok: true });
              } catch (error) {
                if (!(error instanceof ServiceUnavailableError)) console.error(error);
                expect(error).toBeInstanceOf(ServiceUnavailableError);
                expect((error as ServiceUnavailableError).headers['Retry-After']).toBe('1');
                outcomes.push({ ms: Date.now() - started, ok: false });
              }
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await cluster.killMasterOf(`${prefix}s:${written[0].session.idHash}`);
      await cluster.waitHealthy();
      // Recovered without a restart: every session written before the kill reads back.
      await eventually(async () => {
        const loaded = await Promise.all(
          written.map(({ cookie }) => sessions.load(req(cookie.value)).catch(() => undefined)),
        );
        return loaded.every((session) => session != null);
      }, 10_000);
      stop = true;
      await load;
      expect(outcomes.length).toBeGreaterThan(0);
      lag.disable();
      // Each store operation, failed or not, within the command timeout (plus what the machine
      // held the loop for, and some slack): bounded, never held until the failover ends.
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(commandMs + lag.max / 1e6 + 300);
      expect(outcomes.filter((o) => o.ok).length).toBeGreaterThan(0);
      const loaded = await Promise.all(written.map(({ cookie }) => sessions.load(req(cookie.value))));
      expect(loaded.map((session) => session?.userId)).toEqual(written.map((_, i) => String(1000 + i)));
    } finally {
      await opened.close();
    }
  });
});
