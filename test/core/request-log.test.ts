import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestLog, type StructuredLogger } from '@crudsmith/core/server';
import { rawConnection } from '../fixtures/raw-connection';

type Line = { level: 'info' | 'warn' | 'error'; message: string } & Record<string, unknown>;

// The request log on a plain node server: what it writes when no framework is involved at
// all (the example's suite covers the three adapters and the plugin's route patterns).
describe('requestLog on a node server', () => {
  let server: Server;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  async function logging(handler: RequestListener): Promise<{ url: string; lines: Line[] }> {
    const lines: Line[] = [];
    const logger: StructuredLogger = {
      info: (fields, message) => void lines.push({ level: 'info', message, ...fields }),
      warn: (fields, message) => void lines.push({ level: 'warn', message, ...fields }),
      error: (fields, message) => void lines.push({ level: 'error', message, ...fields }),
    };
    server = createServer(handler);
    requestLog({ logger }).attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
  }

  const until = async (check: () => boolean) => {
    for (let waited = 0; !check() && waited < 3000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it('writes the id into the request the app reads, and one line with no route when no route plugin ran', async () => {
    const { url, lines } = await logging((req, res) => res.end(req.headers['x-request-id']));
    const res = await fetch(`${url}/anything?token=abc`, { headers: { 'x-request-id': 'given-1' } });
    expect(await res.text()).toBe('given-1');
    expect(res.headers.get('x-request-id')).toBe('given-1');
    await until(() => lines.length > 0);
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'request',
        requestId: 'given-1',
        method: 'GET',
        route: null,
        status: 200,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('echoes the id even when the app removed every header before answering, as Koa does on an error', async () => {
    const { url } = await logging((_req, res) => {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      res.statusCode = 500;
      res.end('Internal Server Error');
    });
    const res = await fetch(url, { headers: { 'x-request-id': 'kept-1' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('kept-1');
  });

  it('gives the second of two concurrent requests under one id an id of its own', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { url, lines } = await logging((_req, res) => void held.then(() => res.end('ok')));
    const first = fetch(url, { headers: { 'x-request-id': 'same' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = fetch(url, { headers: { 'x-request-id': 'same' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const ids = [(await first).headers.get('x-request-id'), (await second).headers.get('x-request-id')];
    expect(ids[0]).toBe('same');
    expect(ids[1]).not.toBe('same');
    await until(() => lines.length === 2);
    expect(lines.map((line) => line.requestId).sort()).toEqual([...ids].sort());
  });

  it('logs a request whose client left before any answer once, as aborted without a status', async () => {
    const { url, lines } = await logging(() => undefined);
    const socket = await rawConnection(url);
    socket.write('GET /slow HTTP/1.1\r\nHost: test\r\nX-Request-Id: gone-1\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await until(() => lines.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'request',
        requestId: 'gone-1',
        method: 'GET',
        route: null,
        status: null,
        durationMs: expect.any(Number),
        aborted: true,
      },
    ]);
  });
});
