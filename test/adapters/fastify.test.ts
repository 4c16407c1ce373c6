import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { frameworkErrors, mountRoutes } from '@crudsmith/fastify';
import { route, runAdapterSuite, serverStarter } from './conformance';
import { fastifyHarness, listen } from './fastify-harness';

runAdapterSuite(fastifyHarness);

// Response.json() is typed unknown; these tests read known shapes.
const readJson = (res: Response): Promise<any> => res.json();

describe('mountRoutes (Fastify specifics)', () => {
  const start = serverStarter(listen);

  it('exports exactly mountRoutes and frameworkErrors', async () => {
    expect(Object.keys(await import('@crudsmith/fastify')).sort()).toEqual(['frameworkErrors', 'mountRoutes']);
  });

  it("mounts inside the user's encapsulated plugin under a prefix, leaving the app's parsers and errors alone", async () => {
    const app = Fastify();
    app.register(
      async (v1) => {
        mountRoutes(
          v1,
          [
            route('POST /items/:id', (req) => ({
              status: 200,
              json: { id: req.params.id, path: req.path, body: req.body ?? null },
            })),
          ],
          { prefix: '/crud' },
        );
        v1.post('/own', async (request) => ({ own: request.body }));
      },
      { prefix: '/v1' },
    );
    const { url } = await start(app);
    const post = (path: string, body: string, type = 'application/json') =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

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
      if (request.headers.authorization === undefined)
        throw Object.assign(new Error('Login first'), { statusCode: 401 });
    });
    mountRoutes(app, [route('GET /me', () => ({ status: 200, json: 'me' }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Login first' });
  });

  it('renders a parameter over maxParamLength as a JSON detail through frameworkErrors', async () => {
    const app = Fastify({ frameworkErrors });
    mountRoutes(app, [route('GET /items/:id', () => ({ status: 200, json: true }))]);
    const { url } = await start(app);
    const res = await fetch(`${url}/items/${'x'.repeat(101)}`);
    expect(res.status).toBe(414);
    expect(await readJson(res)).toEqual({ detail: 'Path parameter too long' });
  });
});
