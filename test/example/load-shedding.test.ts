// An overloaded process refuses work (503 with Retry-After) instead of answering
// everything late, on every adapter; /readyz says so, so a balancer sends work elsewhere,
// and it takes work again once the load is gone, without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadMonitor, loadShedding } from '@crudsmith/core/server';
import { buildApp, type ExampleApp } from '../../examples/app/src/app';
import { ADAPTERS, serve } from '../../examples/app/src/server';
import { readSettings } from '../../examples/app/src/config';
import { openDatabase, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';

const INTERVAL_MS = 300;

// Holds the event loop as a saturated process does (a CPU-bound burst).
function holdLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* busy */
  }
}

describe.each(ADAPTERS)('load shedding on %s', (adapter) => {
  let db: TestDatabase;
  let app: ExampleApp;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    db = await openDatabase('sqlite');
    app = buildApp(db.knex, {
      secretKey: 'example-test-secret-0123456789abcdefghij',
      bcryptRounds: 4,
      loadShedding: { maxEventLoopDelayMs: 100, sampleIntervalMs: INTERVAL_MS, retryAfterSeconds: 2 },
    });
    await app.start(db.knex);
    server = await serve(app, { adapter, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
    await db?.destroy();
  });

  it('answers 503 with Retry-After while the event loop lags past its bound, reports it on /readyz, and recovers', async () => {
    const c = new Client(server.url);
    // The first request starts the sampling; the start-up's own stalls are never held against it.
    expect((await c.get('/api/v1/items')).status).toBe(200);
    holdLoop(INTERVAL_MS + 400);
    // The overdue sample runs first, then these requests: the verdict holds until the next one.
    const [shed, ready, live] = await Promise.all([c.get('/api/v1/items'), c.get('/readyz'), c.get('/healthz')]);
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('2');
    expect(shed.body.detail).toMatch(/overloaded \(event loop delay \d+ ms\)/);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBeTruthy();
    expect(ready.body.detail).toMatch(/^Not ready: overloaded/);
    // Liveness is not load: the process must not be killed for being busy.
    expect(live.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 2 + 100));
    expect((await c.get('/api/v1/items')).status).toBe(200);
    expect((await c.get('/readyz')).status).toBe(200);
  });
});

describe('LoadMonitor', () => {
  it('names the bound passed: the event-loop delay first, then the heap; 0 turns a bound off', () => {
    const monitor = new LoadMonitor({ maxEventLoopDelayMs: 200, maxHeapUsedRatio: 0.5 });
    expect(monitor.judge(100, 0.4)).toBeUndefined();
    expect(monitor.judge(250, 0.9)).toBe('event loop delay 250 ms');
    expect(monitor.judge(100, 0.6)).toBe('heap 60% used');
    expect(new LoadMonitor({ maxEventLoopDelayMs: 0, maxHeapUsedRatio: 0 }).judge(10_000, 1)).toBeUndefined();
  });

  it('refuses impossible bounds, and the example reads its settings with their defaults', () => {
    expect(() => loadShedding({ maxHeapUsedRatio: 2 })).toThrow(RangeError);
    expect(() => loadShedding({ maxEventLoopDelayMs: -1 })).toThrow(RangeError);
    expect(readSettings({}).loadShedding).toEqual({ maxEventLoopDelayMs: 1000, maxHeapUsedRatio: 0.9 });
    expect(
      readSettings({ LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '250', LOAD_SHEDDING_MAX_HEAP_RATIO: '0.8' }).loadShedding,
    ).toEqual({ maxEventLoopDelayMs: 250, maxHeapUsedRatio: 0.8 });
    expect(() => readSettings({ LOAD_SHEDDING_MAX_HEAP_RATIO: '1.5' })).toThrow(/LOAD_SHEDDING_MAX_HEAP_RATIO/);
  });
});
