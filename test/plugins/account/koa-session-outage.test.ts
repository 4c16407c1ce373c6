// On Koa, koa-session loads the session before the routes and saves it after them, both
// outside the routes' error rendering. With the session store gone (Redis refused, staged
// by a proxy the test controls) every one of those moments answers the JSON 503 the other
// adapters give, never Koa's plain-text error: the load (before the route), a save of what
// the app's middleware wrote, and a sign-out through `ctx.session = null` (after it).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { RouteDescriptor } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { RedisSessionStore } from '@crudsmith/account/redis';
import { listen } from '../../adapters/koa-harness';
import type { MountedServer } from '../../adapters/conformance';
import { openDatabase, type TestDatabase } from '../../fixtures/db';
import { TcpProxy } from '../../fixtures/tcp-proxy';
import { describeRedis, REDIS, uniquePrefix } from '../rate-limit/redis-fixture';
import { Client, PASSWORD, type Answer } from './fixture';
import { koaSessionApp } from './koa-session-app';

function expectJson503(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('content-type')).toContain('application/json');
  expect(answer.headers.get('retry-after')).toBeTruthy();
  expect(answer.body.detail).toMatch(/session store is unavailable/);
}

describeRedis('koa-session with its store gone', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let redis: Redis;
  let server: MountedServer;

  beforeAll(async () => {
    db = await openDatabase('sqlite');
    proxy = await TcpProxy.start(REDIS);
    redis = new Redis({
      host: '127.0.0.1',
      port: proxy.port,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 100,
    });
    redis.on('error', () => {});
    await new Promise((ready) => redis.once('ready', ready));
    const { auth, app, koa } = await koaSessionApp(db, {
      store: new RedisSessionStore(redis, { prefix: uniquePrefix(), commandTimeoutMs: 500 }),
      routes: (plugin): RouteDescriptor[] => [
        {
          method: 'GET',
          path: '/api/plain',
          operation: 'plain',
          dependencies: [],
          handler: async () => ({ status: 200, json: { ok: true } }),
        },
        {
          method: 'GET',
          path: '/api/me',
          operation: 'me',
          dependencies: [plugin.currentUser()],
          handler: async () => ({ status: 200, json: { ok: true } }),
        },
      ],
      // The app's own middleware: the store goes away after koa-session loaded the session, then the app writes or signs out.
      async after(ctx) {
        if (ctx.get('x-cut-then-write')) {
          await proxy.set('refuse');
          ctx.session!.theme = 'dark';
        }
        if (ctx.get('x-cut-then-sign-out')) {
          await proxy.set('refuse');
          ctx.session = null;
        }
      },
    });
    mountRoutes(koa, app.routes, { sessions: [auth.sessionManager!] });
    server = await listen(koa);
  });
  afterEach(async () => {
    await proxy.set('forward');
    await new Promise((ready) => (redis.status === 'ready' ? ready(null) : redis.once('ready', ready)));
  });
  afterAll(async () => {
    await server?.close();
    redis?.disconnect();
    await proxy?.close();
    await db?.destroy();
  });

  async function signedIn(): Promise<Client> {
    const c = new Client(server.url);
    expect((await c.login('kim', PASSWORD)).status).toBe(200);
    return c;
  }

  it('a session that cannot be loaded before the route: JSON 503 from the route that needs it, 200 from one that does not', async () => {
    const c = await signedIn();
    await proxy.set('refuse');
    expectJson503(await c.get('/api/me'));
    expect((await c.get('/api/plain')).status).toBe(200);
  });

  it('a session the app wrote that cannot be saved after the route: JSON 503', async () => {
    const c = await signedIn();
    expectJson503(await c.get('/api/me', { 'x-cut-then-write': '1' }));
  });

  it('a sign-out through ctx.session = null that cannot reach the store: JSON 503', async () => {
    const c = await signedIn();
    expectJson503(await c.get('/api/me', { 'x-cut-then-sign-out': '1' }));
  });
});
