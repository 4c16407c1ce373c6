import { describe, expect, it } from 'vitest';
import { healthRoutes, ShutdownState, type HealthOptions } from '@crudsmith/core/server';
import { createRequest } from '@crudsmith/core/adapter';

// The probes' routes called directly: what each answers, and that a readiness failure never says why in words.
async function call(options: HealthOptions, path: string) {
  const route = healthRoutes(options).find((r) => r.path === path)!;
  return route.handler(
    createRequest({ method: 'GET', path, headers: {}, query: {}, body: undefined, clientAddress: '127.0.0.1' }),
  );
}

describe('healthRoutes', () => {
  it('answers /healthz 200 without running any check', async () => {
    let ran = false;
    const res = await call(
      {
        checks: {
          db: async () => {
            ran = true;
          },
        },
      },
      '/healthz',
    );
    expect(res).toMatchObject({ status: 200, json: { status: 'ok' }, headers: { 'Cache-Control': 'no-store' } });
    expect(ran).toBe(false);
  });

  it('answers /readyz 200 when every check passes', async () => {
    const res = await call({ checks: { db: async () => 1, redis: async () => 'PONG' } }, '/readyz');
    expect(res).toMatchObject({
      status: 200,
      json: { status: 'ready', checks: { db: 'ok', redis: 'ok' } },
      headers: { 'Cache-Control': 'no-store' },
    });
  });

  it('answers 503 with Retry-After when a check fails, and no error text', async () => {
    const secret = 'postgres://user:hunter2@db/app';
    const res = await call(
      {
        checks: {
          db: async () => {
            throw new Error(`connect ECONNREFUSED ${secret}`);
          },
          sync: () => {
            throw new Error(secret);
          },
          redis: async () => 'PONG',
        },
      },
      '/readyz',
    );
    expect(res.status).toBe(503);
    expect(res.headers).toMatchObject({ 'Cache-Control': 'no-store', 'Retry-After': '1' });
    expect(res.json).toMatchObject({ status: 'unavailable', checks: { db: 'failed', sync: 'failed', redis: 'ok' } });
    expect(typeof (res.json as { detail: unknown }).detail).toBe('string');
    expect(JSON.stringify(res)).not.toContain('hunter2');
    expect(JSON.stringify(res)).not.toContain('ECONNREFUSED');
  });

  it('answers 503 within the timeout when a check hangs, running checks concurrently', async () => {
    const started = Date.now();
    const res = await call(
      { timeoutMs: 200, checks: { a: () => new Promise(() => {}), b: () => new Promise(() => {}), c: async () => 1 } },
      '/readyz',
    );
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ checks: { a: 'timeout', b: 'timeout', c: 'ok' } });
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(1000);
  });

  it('answers /readyz 503 without running the checks once the shutdown state drains, /healthz still 200', async () => {
    let ran = 0;
    const shutdown = new ShutdownState();
    const options = {
      shutdown,
      checks: {
        db: async () => {
          ran += 1;
        },
      },
    };
    expect((await call(options, '/readyz')).status).toBe(200);
    shutdown.begin();
    const res = await call(options, '/readyz');
    expect(res).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1', 'Cache-Control': 'no-store' },
      json: { detail: 'Not ready: shutting down', status: 'unavailable', checks: {} },
    });
    expect(ran).toBe(1);
    expect((await call(options, '/healthz')).status).toBe(200);
  });

  it('takes other paths and documents both operations', () => {
    const routes = healthRoutes({ livePath: '/live', readyPath: '/ready' });
    expect(routes.map((r) => [r.method, r.path, r.doc?.operationId])).toEqual([
      ['GET', '/live', 'health_live'],
      ['GET', '/ready', 'health_ready'],
    ]);
    expect(Object.keys(routes[1].doc!.responses!)).toEqual(['200', '503']);
  });
});
