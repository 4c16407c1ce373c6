import Router from '@koa/router';
import coBody from 'co-body';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { listen } from './crudsmith-apps';
import type { Answer, FloorHandlers } from './floor';
import type { Framework, Listening } from './protocol';

// A floor in each framework: its own router and body parser, the hand-written handlers
// (floor.ts or natural.ts), and the answer written the framework's usual way. Every one answers the
// bytes the adapters answer (JSON with `application/json; charset=utf-8`, no ETag).

const BODY_LIMIT = '1mb';

function koaApp(floor: FloorHandlers): Koa {
  const router = new Router();
  // A string body: Koa would answer 204 for a null one.
  const send = (ctx: Koa.Context, answer: Answer) => {
    ctx.status = answer.status;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(answer.json);
  };
  const json = async (ctx: Koa.Context) => {
    try {
      return { body: await coBody.json(ctx.req, { limit: BODY_LIMIT, strict: false }) };
    } catch {
      send(ctx, { status: 400, json: { detail: 'Malformed JSON body' } });
      return undefined;
    }
  };
  router.get('/items/:id', async (ctx) => send(ctx, await floor.read(ctx.params.id)));
  router.get('/items', async (ctx) => send(ctx, await floor.list(ctx.query)));
  router.post('/items', async (ctx) => {
    const parsed = await json(ctx);
    if (parsed) send(ctx, await floor.create(parsed.body));
  });
  router.patch('/items/:id', async (ctx) => {
    const parsed = await json(ctx);
    if (parsed) send(ctx, await floor.update(ctx.params.id, parsed.body));
  });
  const app = new Koa();
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

function expressApp(floor: FloorHandlers): express.Express {
  const app = express();
  // The adapter sends no ETag, so the floor does not compute one either.
  app.set('etag', false);
  app.use(express.json({ limit: BODY_LIMIT, strict: false }));
  const send = (res: express.Response, answer: Answer) => res.status(answer.status).json(answer.json);
  app.get('/items/:id', async (req, res) => send(res, await floor.read(req.params.id)));
  app.get('/items', async (req, res) => send(res, await floor.list(req.query)));
  app.post('/items', async (req, res) => send(res, await floor.create(req.body)));
  app.patch('/items/:id', async (req, res) => send(res, await floor.update(req.params.id, req.body)));
  return app;
}

async function fastifyApp(floor: FloorHandlers): Promise<Listening> {
  const app = Fastify();
  // Serialised by hand as the adapter does (no response schemas), so both send the same bytes.
  const send = (reply: any, answer: Answer) =>
    reply.code(answer.status).type('application/json; charset=utf-8').send(JSON.stringify(answer.json));
  app.get<{ Params: { id: string } }>('/items/:id', async (req, reply) => send(reply, await floor.read(req.params.id)));
  app.get('/items', async (req, reply) => send(reply, await floor.list(req.query as Record<string, unknown>)));
  app.post('/items', async (req, reply) => send(reply, await floor.create(req.body)));
  app.patch<{ Params: { id: string } }>('/items/:id', async (req, reply) =>
    send(reply, await floor.update(req.params.id, req.body)),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { server: app.server, close: () => app.close() };
}

/** Starts the framework's hand-written app on 127.0.0.1 (a port the system picks). */
export function startFloor(framework: Framework, floor: FloorHandlers): Promise<Listening> {
  switch (framework) {
    case 'koa':
      return listen(koaApp(floor).listen(0, '127.0.0.1'));
    case 'express':
      return listen(expressApp(floor).listen(0, '127.0.0.1'));
    case 'fastify':
      return fastifyApp(floor);
  }
}
