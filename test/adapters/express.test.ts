import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/express';
import { route, runAdapterSuite, type MountedServer } from './conformance';
import { expressHarness, listen } from './express-harness';

runAdapterSuite(expressHarness);

describe('mountRoutes (Express specifics)', () => {
  const servers: MountedServer[] = [];
  const start = async (app: express.Express) => {
    const server = await listen(app);
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('exports exactly mountRoutes', async () => {
    expect(Object.keys(await import('@crudsmith/express')).sort()).toEqual(['mountRoutes']);
  });

  it("mounts onto the user's express.Router under a prefix, keeping case-sensitive matching", async () => {
    const app = express();
    const userRouter = express.Router();
    userRouter.get('/own', (_req, res) => {
      res.send('own');
    });
    mountRoutes(userRouter, [route('GET /items/:id', (req) => ({ status: 200, json: { id: req.params.id, path: req.path } }))], { prefix: '/crud' });
    app.use('/v1', userRouter);
    const { url } = await start(app);

    const res = await fetch(`${url}/v1/crud/items/7`);
    expect(await res.json()).toEqual({ id: '7', path: '/v1/crud/items/7' });
    expect((await fetch(`${url}/v1/crud/ITEMS/7`)).status).toBe(404);
    expect((await fetch(`${url}/v1/CRUD/items/7`)).status).toBe(404);
    expect(await (await fetch(`${url}/v1/own`)).text()).toBe('own');
  });

  it('shares res.locals with the app middleware that ran before', async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.locals.tenant = 'acme';
      next();
    });
    mountRoutes(app, [route('GET /tenant', (req) => ({ status: 200, json: req.state.tenant }))]);
    const { url } = await start(app);
    expect(await (await fetch(`${url}/tenant`)).json()).toBe('acme');
  });

  it('uses the body an app-wide express.json() already parsed, still refusing deep JSON and more values than maxBodyValues', async () => {
    const app = express();
    app.use(express.json());
    mountRoutes(app, [route('POST /echo', (req) => ({ status: 200, json: req.body ?? '<none>' }))], { maxBodyValues: 100 });
    const { url } = await start(app);
    const post = (body: string) => fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await (await post('{"a":[1]}')).json()).toEqual({ a: [1] });
    expect((await post('['.repeat(65) + ']'.repeat(65))).status).toBe(400);
    expect((await post(JSON.stringify(Array(100).fill({})))).status).toBe(200);
    expect((await post(JSON.stringify(Array(101).fill({})))).status).toBe(413);
  });

  it('answers a known path with another method 405 with Allow and a JSON detail, and OPTIONS with Allow', async () => {
    const app = express();
    mountRoutes(app, [
      route('GET /only-get/:id', () => ({ status: 200, json: true })),
      route('PATCH /only-get/:key', () => ({ status: 200, json: true })),
    ]);
    const { url } = await start(app);
    const res = await fetch(`${url}/only-get/1`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect(await res.json()).toEqual({ detail: 'Method Not Allowed' });
    const options = await fetch(`${url}/only-get/1`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect((await fetch(`${url}/only-get/1`, { method: 'HEAD' })).status).toBe(200);
  });

  it('sends a 204 without a body or a Content-Type, as Koa does', async () => {
    const app = express();
    mountRoutes(app, [route('DELETE /items/:id', () => ({ status: 204, json: null }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/items/1`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('renders a value JSON cannot encode as a 500 JSON detail', async () => {
    const app = express();
    mountRoutes(app, [route('GET /bigint', () => ({ status: 200, json: { n: 1n } }))], { logger: { error: () => undefined } });
    const { url } = await start(app);
    const res = await fetch(`${url}/bigint`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
  });

  it('refuses a trusted proxy that is not an address or range, at mount time', () => {
    expect(() => mountRoutes(express(), [], { trustedProxies: ['proxy.local'] })).toThrow(ConfigurationError);
    expect(() => mountRoutes(express(), [], { trustedProxies: ['10.0.0.0/8', '::1', 'fd00::/8'] })).not.toThrow();
  });
});
