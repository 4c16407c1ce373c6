import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { frameworkErrors, mountRoutes } from '@crudsmith/fastify';
import { route, runAdapterSuite, type MountedServer } from './conformance';
import { fastifyHarness, listen } from './fastify-harness';

runAdapterSuite(fastifyHarness);

// Response.json() is typed unknown; these tests read known shapes.
const readJson = (res: Response): Promise<any> => res.json();

describe('mountRoutes (Fastify specifics)', () => {
  const servers: MountedServer[] = [];
  const start = async (app: FastifyInstance) => {
    const server = await listen(app);
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('exports exactly mountRoutes and frameworkErrors', async () => {
    expect(Object.keys(await import('@crudsmith/fastify')).sort()).toEqual(['frameworkErrors', 'mountRoutes']);
  });

  it("mounts inside the user's encapsulated plugin under a prefix, leaving the app's parsers and errors alone", async () => {
    const app = Fastify();
    app.register(async (v1) => {
      mountRoutes(v1, [route('POST /items/:id', (req) => ({ status: 200, json: { id: req.params.id, path: req.path, body: req.body ?? null } }))], { prefix: '/crud' });
      v1.post('/own', async (request) => ({ own: request.body }));
    }, { prefix: '/v1' });
    const { url } = await start(app);
    const post = (path: string, body: string, type = 'application/json') => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

    const res = await post('/v1/crud/items/7', '{"a":1}');
    expect(await res.json()).toEqual({ id: '7', path: '/v1/crud/items/7', body: { a: 1 } });
    expect((await post('/v1/crud/ITEMS/7', '{}')).status).toBe(404);
    expect((await post('/v1/CRUD/items/7', '{}')).status).toBe(404);
    // Outside our plugin, Fastify's own parsers and error format still apply.
    expect(await (await post('/v1/own', '{"b":2}')).json()).toEqual({ own: { b: 2 } });
    const malformed = await readJson(await post('/v1/own', '{"b":'));
    expect(malformed.detail).toBeUndefined();
    expect(malformed.statusCode).toBe(400);
    expect((await post('/v1/own', 'x', 'text/csv')).status).toBe(415);
    expect((await post('/v1/crud/items/7', 'x', 'text/csv')).status).toBe(200);
  });

  it("renders an error thrown by the app's own hook as a JSON detail", async () => {
    const app = Fastify();
    app.addHook('onRequest', async (request) => {
      if (request.headers.authorization === undefined) throw Object.assign(new Error('Login first'), { statusCode: 401 });
    });
    mountRoutes(app, [route('GET /me', () => ({ status: 200, json: 'me' }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Login first' });
  });

  it('answers a known path with another method 405 with Allow and a JSON detail, and OPTIONS with Allow', async () => {
    const app = Fastify();
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

  it('renders a parameter over maxParamLength as a JSON detail through frameworkErrors', async () => {
    const app = Fastify({ frameworkErrors });
    mountRoutes(app, [route('GET /items/:id', () => ({ status: 200, json: true }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/items/${'x'.repeat(101)}`);
    expect(res.status).toBe(414);
    expect(await readJson(res)).toEqual({ detail: 'Path parameter too long' });
  });

  it('sends a 204 without a body or a Content-Type, as Koa does', async () => {
    const app = Fastify();
    mountRoutes(app, [route('DELETE /items/:id', () => ({ status: 204, json: null }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/items/1`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('renders a value JSON cannot encode as a 500 JSON detail', async () => {
    const app = Fastify();
    mountRoutes(app, [route('GET /bigint', () => ({ status: 200, json: { n: 1n } }))], { logger: { error: () => undefined } });
    const { url } = await start(app);
    const res = await fetch(`${url}/bigint`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error' });
  });

  it('refuses a trusted proxy that is not an address or range, at mount time', () => {
    expect(() => mountRoutes(Fastify(), [], { trustedProxies: ['proxy.local'] })).toThrow(ConfigurationError);
    expect(() => mountRoutes(Fastify(), [], { trustedProxies: ['10.0.0.0/8', '::1', 'fd00::/8'] })).not.toThrow();
  });
});
