import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import { buildApp } from '../../examples/app/src/app';
import { ADAPTERS, serve, type RunningServer } from '../../examples/app/src/server';
import { ADAPTER_ENGINES, startExample, type ExampleServer } from './example-server';

// The example's probes over HTTP: alive and ready on every adapter and engine, and not ready, fast, when the database cannot answer.
describe.each(ADAPTER_ENGINES)('example /healthz and /readyz on %s with %s', (adapter, engine) => {
  let example: ExampleServer;
  beforeAll(async () => {
    example = await startExample(engine, { adapter });
  });
  afterAll(async () => {
    await example?.close();
  });

  it('answers /healthz 200 and /readyz 200 with the database checked, never cached', async () => {
    const live = await example.client().request('GET', '/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await example.client().request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
    expect(ready.headers.get('cache-control')).toBe('no-store');
  });

  it('is not counted by the rate limiter', async () => {
    const ready = await example.client().request('GET', '/readyz');
    expect(ready.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

// A database that refuses connections, and one that accepts them and never answers (a network cut).
describe.each(ADAPTERS)('example /readyz with an unreachable database on %s', (adapter) => {
  let silent: Server;
  const sockets: Socket[] = [];
  let closedPort: number;
  const opened: { knex: Knex; server: RunningServer }[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(async () => {
    // The silent server's sockets go first, so the pool's pending connections fail instead of waiting out their own timeout.
    for (const socket of sockets) socket.destroy();
    for (const { knex, server } of opened) {
      await server.close();
      await knex.destroy();
    }
    await new Promise((resolve) => silent?.close(resolve));
  });

  // The pool would print every refused connection; the answers are what is under test.
  const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };

  async function readyzAt(port: number) {
    const knex = knexFactory({
      client: 'pg',
      connection: { host: '127.0.0.1', port, user: 'nobody', password: 'hunter2', database: 'app' },
      pool: { min: 0, max: 2, createTimeoutMillis: 2000 },
      log: QUIET,
    });
    const app = buildApp(knex, { secretKey: 'example-test-secret-0123456789abcdefghij', readinessTimeoutMs: 500 });
    const server = await serve(app, { adapter, host: '127.0.0.1', port: 0 });
    opened.push({ knex, server });
    const started = Date.now();
    const res = await fetch(`${server.url}/readyz`);
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      text: await res.text(),
      took: Date.now() - started,
      live: (await fetch(`${server.url}/healthz`)).status,
    };
  }

  it('answers 503 at once when the database refuses', async () => {
    const res = await readyzAt(closedPort);
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('1');
    expect(JSON.parse(res.text)).toMatchObject({ status: 'unavailable', checks: { database: 'failed' } });
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('ECONNREFUSED');
    expect(res.took).toBeLessThan(3000);
    expect(res.live).toBe(200);
  });

  it('answers 503 within the timeout when the database never answers', async () => {
    const res = await readyzAt((silent.address() as AddressInfo).port);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({ status: 'unavailable', checks: { database: 'timeout' } });
    expect(res.took).toBeGreaterThanOrEqual(400);
    expect(res.took).toBeLessThan(3000);
    expect(res.live).toBe(200);
  });
});
