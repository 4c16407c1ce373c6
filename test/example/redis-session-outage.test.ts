import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../../examples/app/src/server';
import { openSessionStore, type OpenedSessionStore } from '../../examples/app/src/session-store';
import { expectUnavailable, timed } from '../fixtures/outage';
import { TcpProxy } from '../fixtures/tcp-proxy';
import type { Client } from '../plugins/account/fixture';
import { describeRedis, REDIS } from '../plugins/rate-limit/redis-fixture';
import { ADMIN_PASSWORD, startExample, type ExampleServer } from './example-server';

// Redis holding the sessions goes away (refused, then a network cut staged by a proxy the
// test controls, never by stopping the Redis other suites share): a request carrying a
// session cookie answers a JSON 503 with Retry-After within the command timeout on every
// adapter (on Koa too, where koa-session loads the session before the routes), requests
// that need no session still serve, the outage is logged once, not per request or per
// reconnection, ioredis never prints "Unhandled error event", and the same cookie works
// again once Redis is back, without a restart.
const TIMEOUTS = { connectMs: 500, commandMs: 500 };
const BOUND_MS = 3000;

// What a request needing the session answers while Redis is gone.
const UNAVAILABLE = { detail: /session store is unavailable/, boundMs: BOUND_MS };

describeRedis('the example with its sessions in a Redis that goes away', () =>
  describe.each(ADAPTERS)('on %s', (adapter) => {
    let proxy: TcpProxy;
    let sessions: OpenedSessionStore;
    let example: ExampleServer;
    let admin: Client;
    const logged: string[] = [];
    const consoleErrors = vi.spyOn(console, 'error');

    beforeAll(async () => {
      proxy = await TcpProxy.start(REDIS);
      const prefix = `cs-test:${process.pid}:${Date.now().toString(36)}:${adapter}:`;
      sessions = openSessionStore({ url: `redis://127.0.0.1:${proxy.port}` }, prefix, {
        timeouts: TIMEOUTS,
        log: (line) => logged.push(line),
      })!;
      await new Promise((ready) => sessions.client.once('ready', ready));
      example = await startExample('sqlite', { adapter, build: { sessionStore: sessions.store } });
      admin = example.admin;
    });
    afterEach(async () => {
      await proxy.set('forward');
    });
    afterAll(async () => {
      await example?.close();
      await sessions?.close();
      await proxy?.close();
      consoleErrors.mockRestore();
    });

    async function expectBack(): Promise<void> {
      // ioredis reconnects within a second; the same cookie is valid again without a restart.
      await vi.waitFor(async () => expect((await admin.get('/auth/me')).status).toBe(200), {
        timeout: 5000,
        interval: 200,
      });
    }

    it('answers a refused Redis with a JSON 503 fast for requests carrying a session, and serves the others', async () => {
      expect((await admin.get('/auth/me')).status).toBe(200);
      await proxy.set('refuse');
      for (let i = 0; i < 10; i++) expectUnavailable(await timed(admin.get('/auth/me')), UNAVAILABLE);
      expectUnavailable(await timed(admin.get('/api/v1/items')), UNAVAILABLE);
      expectUnavailable(await timed(example.client().login('admin', ADMIN_PASSWORD)), UNAVAILABLE);
      // No session involved: the database and the limiter in memory still serve.
      expect((await example.client().get('/api/v1/items')).status).toBe(200);
      await proxy.set('forward');
      await expectBack();
    });

    it('answers a Redis behind a network cut with a JSON 503 within the command timeout', async () => {
      await proxy.set('silent');
      const answers = await Promise.all([
        timed(admin.get('/auth/me')),
        timed(admin.get('/api/v1/items')),
        timed(example.client().login('admin', ADMIN_PASSWORD)),
      ]);
      for (const answer of answers) expectUnavailable(answer, UNAVAILABLE);
      await proxy.set('forward');
      await expectBack();
    });

    it('logs the outage in one line per period, never an ioredis "Unhandled error event"', () => {
      // Two outages within a minute, dozens of failed requests and reconnections: one line for the first, one for its end.
      expect(logged.filter((line) => /unavailable/.test(line))).toHaveLength(1);
      expect(logged.every((line) => !line.includes('\n'))).toBe(true);
      expect(
        consoleErrors.mock.calls
          .flat()
          .map(String)
          .filter((text) => text.includes('Unhandled error event')),
      ).toEqual([]);
    });
  }),
);
