import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrap, DatabaseUnavailableError, ServiceUnavailableError, type RouteDescriptor } from '@crudsmith/core';
import { requestLog, type StructuredLogger } from '@crudsmith/core/server';
import { appWith as expressApp } from '../adapters/express-harness';
import { appWith as fastifyApp } from '../adapters/fastify-harness';
import { appWith as koaApp } from '../adapters/koa-harness';
import { route, type MountOptions } from '../adapters/conformance-kit';

type Line = { level: 'info' | 'warn' | 'error'; message: string; err?: unknown } & Record<string, unknown>;

// A node server under each adapter, with the request log attached before it serves; Koa's
// own `error` event (what Koa reports itself) goes to `koaErrors`.
const STARTERS: Record<
  string,
  (routes: RouteDescriptor[], options: MountOptions, koaErrors: unknown[]) => Promise<Server>
> = {
  koa: (routes, options, koaErrors) => {
    const app = koaApp(routes, options);
    app.on('error', (error: unknown) => void koaErrors.push(error));
    return listening(app.listen(0, '127.0.0.1'));
  },
  express: (routes, options) => listening(expressApp(routes, options).listen(0, '127.0.0.1')),
  fastify: async (routes, options) => {
    const app = fastifyApp(routes, options);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app.server;
  },
};

function listening(server: Server): Promise<Server> {
  return new Promise((resolve) =>
    server.listening ? resolve(server) : server.once('listening', () => resolve(server)),
  );
}

// Errors a driver throws when the database is away: the database error mapping makes them 503s.
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

// The request log's levels and the errors the adapters catch themselves, on every adapter:
// an outage's 503 is a warning without a stack, an unexpected error is written once, on its
// request's line, with its id, wherever it was caught.
describe.each(Object.keys(STARTERS))('request log levels and error reports on %s', (adapter) => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  async function start(routes: RouteDescriptor[]): Promise<{ url: string; lines: Line[]; koaErrors: unknown[] }> {
    const koaErrors: unknown[] = [];
    const lines: Line[] = [];
    const logger: StructuredLogger = {
      info: (fields, message) => void lines.push({ level: 'info', message, ...fields }),
      warn: (fields, message) => void lines.push({ level: 'warn', message, ...fields }),
      error: (fields, message) => void lines.push({ level: 'error', message, ...fields }),
    };
    const log = requestLog({ logger });
    const app = bootstrap({ routers: [routes], plugins: [log.plugin], logger: log.errors });
    server = await STARTERS[adapter](app.routes, { logger: log.errors }, koaErrors);
    log.attach(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, koaErrors };
  }

  // Lines are written as answers end: wait for `count`, then a little longer, so an extra line would show.
  async function settled(lines: Line[], count: number): Promise<Line[]> {
    for (let waited = 0; lines.length < count && waited < 3000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    return lines;
  }

  it('writes an outage 503 at warn, without a stack, whether typed or a driver error mapped to it', async () => {
    const { url, lines } = await start([
      route('GET /database-down', () => {
        throw new DatabaseUnavailableError();
      }),
      route('GET /refused', () => {
        throw refused();
      }),
      route('GET /store-down', () => {
        throw new ServiceUnavailableError('The session store is unavailable');
      }),
    ]);
    for (const path of ['/database-down', '/refused', '/store-down']) {
      const res = await fetch(`${url}${path}`, { headers: { 'x-request-id': `outage${path.replace('/', '-')}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
    }
    expect(await settled(lines, 3)).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatchObject({ level: 'warn', message: 'request', status: 503 });
      expect(line).not.toHaveProperty('err');
    }
    expect(lines.map((line) => line.route).sort()).toEqual(['/database-down', '/refused', '/store-down']);
  });

  it('writes an unexpected 500 at error with the error as err, on its line and nowhere else', async () => {
    const fault = new Error('a bug in the handler');
    const { url, lines } = await start([
      route('GET /broken', () => {
        throw fault;
      }),
    ]);
    const res = await fetch(`${url}/broken`, { headers: { 'x-request-id': 'broken-1' } });
    expect(res.status).toBe(500);
    expect(await settled(lines, 1)).toEqual([
      {
        level: 'error',
        message: 'request',
        requestId: 'broken-1',
        method: 'GET',
        route: '/broken',
        status: 500,
        durationMs: expect.any(Number),
        err: fault,
      },
    ]);
  });

  it('puts an error the adapter caught itself (an answer it could not write) on the 500 line of its request', async () => {
    const { url, lines } = await start([route('GET /unwritable', () => ({ status: 200, json: { n: 1n } }))]);
    const res = await fetch(`${url}/unwritable`, { headers: { 'x-request-id': 'unwritable-1' } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
    const [line, ...others] = await settled(lines, 1);
    expect(others).toEqual([]);
    expect(line).toMatchObject({ level: 'error', requestId: 'unwritable-1', status: 500 });
    expect(line.err).toBeInstanceOf(TypeError);
    expect(String((line.err as Error).message)).toMatch(/BigInt/);
  });

  // Koa streams the body itself and reports its failure to the app's `error` event, where a Koa app's errors go.
  it("reports a body stream that fails mid-answer with the id of its request, or on Koa to Koa's error event", async () => {
    const failing = () =>
      new Readable({
        read() {
          this.push('partial ');
          this.destroy(new Error('the file went away'));
        },
      });
    const { url, lines, koaErrors } = await start([
      route('GET /stream', () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: failing() })),
    ]);
    await fetch(`${url}/stream`, { headers: { 'x-request-id': 'stream-1' } })
      .then((res) => res.text())
      .catch(() => undefined);
    await settled(lines, 1);
    const reported = lines.filter((line) => line.err !== undefined);
    expect(reported).toHaveLength(adapter === 'koa' ? 0 : 1);
    // Koa may emit it more than once (from the body's listener and from its response).
    expect([...new Set(koaErrors.map((error) => (error as Error).message))]).toEqual(
      adapter === 'koa' ? ['the file went away'] : [],
    );
    for (const line of reported)
      expect(line).toMatchObject({ level: 'error', requestId: 'stream-1', err: { message: 'the file went away' } });
  });
});
