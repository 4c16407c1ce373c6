import express from 'express';
import { describe, expect, it } from 'vitest';
import { mountRoutes } from '@crudsmith/express';
import { route, runAdapterSuite, serverStarter } from './conformance';
import { expressHarness, listen } from './express-harness';

runAdapterSuite(expressHarness);

describe('mountRoutes (Express specifics)', () => {
  const start = serverStarter(listen);

  it('exports exactly mountRoutes', async () => {
    expect(Object.keys(await import('@crudsmith/express')).sort()).toEqual(['mountRoutes']);
  });

  it("mounts onto the user's express.Router under a prefix, keeping case-sensitive matching", async () => {
    const app = express();
    const userRouter = express.Router();
    userRouter.get('/own', (_req, res) => {
      res.send('own');
    });
    mountRoutes(
      userRouter,
      [route('GET /items/:id', (req) => ({ status: 200, json: { id: req.params.id, path: req.path } }))],
      { prefix: '/crud' },
    );
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
    mountRoutes(app, [route('POST /echo', (req) => ({ status: 200, json: req.body ?? '<none>' }))], {
      maxBodyValues: 100,
    });
    const { url } = await start(app);
    const post = (body: string) =>
      fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await (await post('{"a":[1]}')).json()).toEqual({ a: [1] });
    expect((await post('['.repeat(65) + ']'.repeat(65))).status).toBe(400);
    expect((await post(JSON.stringify(Array(100).fill({})))).status).toBe(200);
    expect((await post(JSON.stringify(Array(101).fill({})))).status).toBe(413);
  });
});
