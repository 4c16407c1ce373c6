import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { gracefulShutdown, ShutdownState, type GracefulShutdown } from '@crudsmith/core/server';
import { rawConnection, statusOf } from '../fixtures/raw-connection';

// The shutdown helper on a plain node server in this process, called directly rather than by a signal
// (the example's suite sends real signals on every adapter).
describe('gracefulShutdown', () => {
  let server: Server;
  let installed: GracefulShutdown | undefined;
  afterEach(() => {
    installed?.dispose();
    server?.closeAllConnections();
  });

  async function listening(
    handler: Parameters<typeof createServer>[1] = (_req, res) => void res.end('ok'),
  ): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('flips the state, closes in order after the drain and resolves 0', async () => {
    await listening();
    const state = new ShutdownState();
    const order: string[] = [];
    installed = gracefulShutdown(server, {
      state,
      signals: [],
      close: {
        plugins: () => void order.push(`plugins ${state.draining}`),
        database: async () => void order.push('database'),
      },
    });
    expect(await installed.shutdown()).toBe(0);
    expect(order).toEqual(['plugins true', 'database']);
    expect(server.listening).toBe(false);
  });

  it('runs every closer even when one fails or hangs, and resolves 1', async () => {
    await listening();
    const closed: string[] = [];
    installed = gracefulShutdown(server, {
      signals: [],
      closeTimeoutMs: 200,
      close: {
        broken: async () => {
          throw new Error('already closed');
        },
        stuck: () => new Promise(() => {}),
        database: () => void closed.push('database'),
      },
    });
    const started = Date.now();
    expect(await installed.shutdown()).toBe(1);
    expect(closed).toEqual(['database']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('waits for an in-flight answer, which tells its client the connection closes', async () => {
    let answer: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const url = await listening((_req, res) => {
      answer = () => res.end('late');
      arrived();
    });
    installed = gracefulShutdown(server, { signals: [], timeoutMs: 5000 });
    const pending = fetch(url);
    await new Promise<void>((resolve) => (arrived = resolve));
    let finished = false;
    const done = installed.shutdown().finally(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(false);
    answer();
    const res = await pending;
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.text()).toBe('late');
    expect(await done).toBe(0);
  });

  it('keeps accepting new connections for preStopDelayMs while reporting not ready, then stops accepting', async () => {
    const state = new ShutdownState();
    const url = await listening((_req, res) => void res.end(state.draining ? 'draining' : 'ready'));
    installed = gracefulShutdown(server, { state, signals: [], preStopDelayMs: 1000 });
    const started = Date.now();
    const done = installed.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A connection opened after the signal is still accepted and served.
    const late = await rawConnection(url);
    late.write('GET /readyz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
    const answer = await late.answer();
    expect(statusOf(answer)).toBe(200);
    expect(answer.endsWith('draining')).toBe(true);
    expect(server.listening).toBe(true);
    expect(await done).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.listening).toBe(false);
  });

  it('refuses a pre-stop delay that is not a whole number of milliseconds', async () => {
    await listening();
    for (const preStopDelayMs of [-1, 1.5, Number.NaN])
      expect(() => gracefulShutdown(server, { signals: [], preStopDelayMs })).toThrow(ConfigurationError);
  });

  it('is one shutdown however often it is asked', async () => {
    await listening();
    let closes = 0;
    installed = gracefulShutdown(server, { signals: [], close: { once: () => void (closes += 1) } });
    const [a, b] = await Promise.all([installed.shutdown(), installed.shutdown()]);
    expect([a, b, closes]).toEqual([0, 0, 1]);
  });
});
