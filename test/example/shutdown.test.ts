import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { rawConnection, statusOf, type RawConnection } from '../fixtures/raw-connection';
import { spawnApp, type AppProcess } from './spawn-app';

// The example as `npm start` runs it, stopped by SIGTERM or SIGINT on every adapter.
describe.each(['koa', 'express', 'fastify'])('graceful shutdown of the example on %s', (adapter) => {
  let app: AppProcess | undefined;
  const sockets: RawConnection[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await app?.stop();
  });

  async function open(): Promise<RawConnection> {
    const socket = await rawConnection(app!.url);
    sockets.push(socket);
    return socket;
  }

  // Resolves with the exit code, or 'running' when the process is still alive after `ms`.
  const exitWithin = (ms: number) => Promise.race([app!.exited, sleep(ms).then(() => 'running' as const)]);

  it('lets an in-flight request finish, answers /readyz 503 while draining, refuses new connections and exits 0', async () => {
    app = await spawnApp({ ADAPTER: adapter, SHUTDOWN_TIMEOUT_MS: '30000' });
    const body = JSON.stringify({ name: 'Slow anvil', price: 80 });
    const slow = await open();
    slow.write(
      `POST /api/v1/items HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // A probe whose request is still arriving when the signal comes.
    const probe = await open();
    probe.write('GET /readyz HTTP/1.1\r\nHost: test\r\n');
    await sleep(500);

    const signalled = Date.now();
    app.signal('SIGTERM');
    await sleep(500);
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();
    expect(await exitWithin(0)).toBe('running');

    probe.write('\r\n');
    const ready = await probe.answer();
    expect(statusOf(ready)).toBe(503);
    expect(ready).toMatch(/^connection: close\r$/im);
    expect(ready).toContain('"detail":"Not ready: shutting down"');

    slow.write(body.slice(10));
    const created = await slow.answer();
    expect(statusOf(created)).toBe(201);
    expect(created).toContain('"name":"Slow anvil"');

    expect(await app.exited).toBe(0);
    // Drained well before the 30 s deadline: the process leaves as soon as its requests are done.
    expect(Date.now() - signalled).toBeLessThan(15_000);
  }, 60_000);

  it('does not let a half-sent request or an idle keep-alive connection hold the process past the deadline', async () => {
    app = await spawnApp({ ADAPTER: adapter, SHUTDOWN_TIMEOUT_MS: '1500' });
    const idle = await open();
    idle.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    const halfBody = await open();
    halfBody.write(
      'POST /api/v1/items HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    const halfHead = await open();
    halfHead.write('GET /api/v1/items HTTP/1.1\r\nHost: test\r\n');
    await sleep(500);

    const signalled = Date.now();
    app.signal('SIGTERM');
    expect(await app.exited).toBe(0);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1200);
    expect(took).toBeLessThan(10_000);
    expect(statusOf(await idle.answer())).toBe(200);
    // The exit closed the half-sent requests' connections too (their close may land just after it).
    const cut = Promise.all([halfBody.answer(), halfHead.answer()]).then(() => 'closed');
    expect(await Promise.race([cut, sleep(5000).then(() => 'still open')])).toBe('closed');
  }, 60_000);

  it('keeps accepting for SHUTDOWN_PRE_STOP_DELAY_MS with /readyz at 503, then drains and exits 0', async () => {
    app = await spawnApp({ ADAPTER: adapter, SHUTDOWN_PRE_STOP_DELAY_MS: '2000' });
    const signalled = Date.now();
    app.signal('SIGTERM');
    await sleep(500);
    // New connections (fetch opens one for this process) are still served, and the probe says not ready.
    const ready = await fetch(`${app.url}/readyz`, { headers: { connection: 'close' } });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ detail: 'Not ready: shutting down' });
    const items = await fetch(`${app.url}/api/v1/items`, { headers: { connection: 'close' } });
    expect(items.status).toBe(200);
    expect(await exitWithin(0)).toBe('running');
    expect(await app.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1900);
  }, 60_000);

  it('exits at once on a second signal', async () => {
    app = await spawnApp({ ADAPTER: adapter, SHUTDOWN_TIMEOUT_MS: '60000' });
    const half = await open();
    half.write('GET /api/v1/items HTTP/1.1\r\nHost: test\r\n');
    await sleep(500);

    app.signal('SIGTERM');
    expect(await exitWithin(1000)).toBe('running');
    const second = Date.now();
    app.signal('SIGINT');
    expect(await app.exited).toBe(1);
    expect(Date.now() - second).toBeLessThan(3000);
  }, 60_000);
});
