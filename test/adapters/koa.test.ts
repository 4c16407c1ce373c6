import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { route, runAdapterSuite, type MountedServer } from './conformance';
import { koaHarness, listen } from './koa-harness';

runAdapterSuite(koaHarness);

describe('mountRoutes (Koa specifics)', () => {
  const servers: MountedServer[] = [];
  const start = async (app: Koa) => {
    const server = await listen(app);
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('exports exactly mountRoutes and koaSessionOptions', async () => {
    expect(Object.keys(await import('@crudsmith/koa')).sort()).toEqual(['koaSessionOptions', 'mountRoutes']);
  });

  it("mounts onto the user's @koa/router, keeping case-sensitive matching", async () => {
    const app = new Koa();
    const userRouter = new Router({ prefix: '/v1' });
    userRouter.get('/own', (ctx) => {
      ctx.body = 'own';
    });
    mountRoutes(userRouter, [route('GET /items/:id', (req) => ({ status: 200, json: { id: req.params.id, path: req.path } }))], { prefix: '/crud' });
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

  it('answers a known path with another method 405 with Allow and a JSON detail', async () => {
    const app = new Koa();
    mountRoutes(app, [route('GET /only-get', () => ({ status: 200, json: true }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/only-get`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(await res.json()).toEqual({ detail: 'Method Not Allowed' });
  });

  it('renders a value JSON cannot encode as a 500 JSON detail', async () => {
    const app = new Koa();
    mountRoutes(app, [route('GET /bigint', () => ({ status: 200, json: { n: 1n } }))], { logger: { error: () => undefined } });
    const { url } = await start(app);
    const res = await fetch(`${url}/bigint`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
  });

  it('refuses fallbacks on a router, which cannot host them', () => {
    const fallbacks = [{ prefix: '/api', handler: async () => ({ status: 404, json: { detail: 'Not Found' } }) }];
    expect(() => mountRoutes(new Router(), [], { fallbacks })).toThrow(ConfigurationError);
  });

  it('refuses a trusted proxy that is not an address or range, at mount time', () => {
    expect(() => mountRoutes(new Koa(), [], { trustedProxies: ['proxy.local'] })).toThrow(ConfigurationError);
    expect(() => mountRoutes(new Koa(), [], { trustedProxies: ['10.0.0.0/'] })).toThrow(ConfigurationError);
    expect(() => mountRoutes(new Koa(), [], { trustedProxies: ['10.0.0.0/8', '::1', 'fd00::/8'] })).not.toThrow();
  });
});
