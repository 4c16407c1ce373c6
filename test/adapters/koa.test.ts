import { Readable } from 'node:stream';
import Koa from 'koa';
import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { route, runAdapterSuite, serverStarter } from './conformance';
import { koaHarness, listen } from './koa-harness';

runAdapterSuite(koaHarness);

describe('mountRoutes (Koa specifics)', () => {
  const start = serverStarter(listen);

  it('exports exactly mountRoutes and koaSessionOptions', async () => {
    expect(Object.keys(await import('@crudsmith/koa')).sort()).toEqual(['koaSessionOptions', 'mountRoutes']);
  });

  it("mounts onto the user's @koa/router, keeping case-sensitive matching", async () => {
    const app = new Koa();
    const userRouter = new Router({ prefix: '/v1' });
    userRouter.get('/own', (ctx) => {
      ctx.body = 'own';
    });
    mountRoutes(
      userRouter,
      [route('GET /items/:id', (req) => ({ status: 200, json: { id: req.params.id, path: req.path } }))],
      { prefix: '/crud' },
    );
    app.use(userRouter.routes()).use(userRouter.allowedMethods());
    const { url } = await start(app);

    const res = await fetch(`${url}/v1/crud/items/7`);
    expect(await res.json()).toEqual({ id: '7', path: '/v1/crud/items/7' });
    expect((await fetch(`${url}/v1/crud/ITEMS/7`)).status).toBe(404);
    expect(await (await fetch(`${url}/v1/own`)).text()).toBe('own');
  });

  it('shares ctx.state with the app middleware that ran before', async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.tenant = 'acme';
      await next();
    });
    mountRoutes(app, [route('GET /tenant', (req) => ({ status: 200, json: req.state.tenant }))]);
    const { url } = await start(app);
    expect(await (await fetch(`${url}/tenant`)).json()).toBe('acme');
  });

  it('reports nothing when a client leaves mid-stream, and keeps serving', async () => {
    const app = new Koa();
    const reported: unknown[] = [];
    app.on('error', (error) => void reported.push(error));
    // An export that never ends on its own: only the client going away stops it.
    const rows = new Readable({ read: () => void setImmediate(() => rows.push('x'.repeat(16_384) + '\n')) });
    const closed = new Promise((resolve) => rows.once('close', resolve));
    const logger = { error: (_message: string, error: unknown) => void reported.push(error) };
    mountRoutes(
      app,
      [
        route('GET /export', () => ({ status: 200, body: rows, headers: { 'Content-Type': 'text/csv' } })),
        route('GET /ping', () => ({ status: 200, json: 'pong' })),
      ],
      { logger },
    );
    const { url } = await start(app);

    const leaving = new AbortController();
    const res = await fetch(`${url}/export`, { signal: leaving.signal });
    await res.body!.getReader().read();
    leaving.abort();
    await closed;
    expect(await (await fetch(`${url}/ping`)).json()).toBe('pong');
    expect(reported).toEqual([]);
  });

  it('refuses fallbacks on a router, which cannot host them', () => {
    const fallbacks = [{ prefix: '/api', handler: async () => ({ status: 404, json: { detail: 'Not Found' } }) }];
    expect(() => mountRoutes(new Router(), [], { fallbacks })).toThrow(ConfigurationError);
  });
});
