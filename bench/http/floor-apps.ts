import Router from '@koa/router';
import coBody from 'co-body';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { listen, quietOnDisconnect } from './crudsmith-apps';
import type { Answer, FloorHandlers } from './floor';
import type { Framework, Listening } from './protocol';

// A floor in each framework: its own router and body parser, the hand-written handlers
// (floor.ts or natural.ts), and the answer written the framework's usual way. Every one answers the
// bytes the adapters answer (JSON with `application/json; charset=utf-8`; an ETag on a read only).

const BODY_LIMIT = '1mb';

/** The headers of a streamed export: its type, a download name, and no caching, as an export answers. */
function streamHeaders(stream: NonNullable<Answer['stream']>): Record<string, string> {
  return {
    'Content-Type': stream.type,
    'Content-Disposition': `attachment; filename="${stream.filename}"`,
    'Cache-Control': 'no-store',
  };
}

function koaApp(floor: FloorHandlers): Koa {
  const router = new Router();
  // A string body: Koa would answer 204 for a null one.
  const send = (ctx: Koa.Context, answer: Answer) => {
    ctx.status = answer.status;
    if (answer.etag) ctx.set('ETag', answer.etag);
    if (answer.stream) {
      ctx.set(streamHeaders(answer.stream));
      ctx.body = answer.stream.body;
    } else if (answer.status !== 304) {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify(answer.json);
    }
  };
  const json = async (ctx: Koa.Context) => {
    try {
      return { body: await coBody.json(ctx.req, { limit: BODY_LIMIT, strict: false }) };
    } catch {
      send(ctx, { status: 400, json: { detail: 'Malformed JSON body' } });
      return undefined;
    }
  };
  const { export: exportRows, bulkCreate } = floor;
  if (exportRows) router.get('/items/export', async (ctx) => send(ctx, await exportRows(ctx.query)));
  router.get('/items/:id', async (ctx) =>
    send(ctx, await floor.read(ctx.params.id, ctx.get('if-none-match') || undefined)),
  );
  router.get('/items', async (ctx) => send(ctx, await floor.list(ctx.query)));
  router.post('/items', async (ctx) => {
    const parsed = await json(ctx);
    if (parsed) send(ctx, await floor.create(parsed.body));
  });
  if (bulkCreate)
    router.post('/items/bulk', async (ctx) => {
      const parsed = await json(ctx);
      if (parsed) send(ctx, await bulkCreate(parsed.body));
    });
  router.patch('/items/:id', async (ctx) => {
    const parsed = await json(ctx);
    if (parsed) send(ctx, await floor.update(ctx.params.id, parsed.body));
  });
  const app = quietOnDisconnect(new Koa());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

function expressApp(floor: FloorHandlers): express.Express {
  const app = express();
  // Express's own ETag hashes every answer; the adapter tags reads only, and so does the floor, by hand.
  app.set('etag', false);
  app.use(express.json({ limit: BODY_LIMIT, strict: false }));
  const send = (res: express.Response, answer: Answer) => {
    res.status(answer.status);
    if (answer.etag) res.set('ETag', answer.etag);
    if (answer.stream) answer.stream.body.pipe(res.set(streamHeaders(answer.stream)));
    else if (answer.status === 304) res.end();
    else res.json(answer.json);
  };
  const { export: exportRows, bulkCreate } = floor;
  if (exportRows) app.get('/items/export', async (req, res) => send(res, await exportRows(req.query)));
  app.get('/items/:id', async (req, res) => send(res, await floor.read(req.params.id, req.get('if-none-match'))));
  app.get('/items', async (req, res) => send(res, await floor.list(req.query)));
  app.post('/items', async (req, res) => send(res, await floor.create(req.body)));
  if (bulkCreate) app.post('/items/bulk', async (req, res) => send(res, await bulkCreate(req.body)));
  app.patch('/items/:id', async (req, res) => send(res, await floor.update(req.params.id, req.body)));
  return app;
}

async function fastifyApp(floor: FloorHandlers): Promise<Listening> {
  const app = Fastify();
  // Serialised by hand as the adapter does (no response schemas), so both send the same bytes.
  const send = (reply: any, answer: Answer) => {
    reply.code(answer.status);
    if (answer.etag) reply.header('ETag', answer.etag);
    if (answer.stream) return reply.headers(streamHeaders(answer.stream)).send(answer.stream.body);
    if (answer.status === 304) return reply.send();
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.json));
  };
  const { export: exportRows, bulkCreate } = floor;
  if (exportRows)
    app.get('/items/export', async (req, reply) => send(reply, await exportRows(req.query as Record<string, unknown>)));
  app.get<{ Params: { id: string } }>('/items/:id', async (req, reply) =>
    send(reply, await floor.read(req.params.id, req.headers['if-none-match'])),
  );
  app.get('/items', async (req, reply) => send(reply, await floor.list(req.query as Record<string, unknown>)));
  app.post('/items', async (req, reply) => send(reply, await floor.create(req.body)));
  if (bulkCreate) app.post('/items/bulk', async (req, reply) => send(reply, await bulkCreate(req.body)));
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
