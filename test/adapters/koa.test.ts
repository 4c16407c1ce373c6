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

  it('refuses fallbacks on a router, which cannot host them', () => {
    const fallbacks = [{ prefix: '/api', handler: async () => ({ status: 404, json: { detail: 'Not Found' } }) }];
    expect(() => mountRoutes(new Router(), [], { fallbacks })).toThrow(ConfigurationError);
  });
});
