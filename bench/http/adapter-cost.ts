import { fork } from 'node:child_process';
import { createServer, type RequestListener } from 'node:http';
import autocannon from 'autocannon';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import Router from '@koa/router';
import coBody from 'co-body';
import type { RouteDescriptor } from '@crudsmith/core';
import { mountRoutes as mountExpress } from '@crudsmith/express';
import { mountRoutes as mountFastify } from '@crudsmith/fastify';
import { mountRoutes as mountKoa } from '@crudsmith/koa';

// The adapters' own cost per request, apart from any database: one route served through
// an adapter against the same answer written by hand on the same framework, each in a
// server process of its own, loaded by autocannon from this one. Both sides answer the
// same bytes from a fixed value, so the difference in server CPU per request is what the
// adapter adds. Run from the repository root (built packages):
//   npx tsx --tsconfig bench/tsconfig.json bench/http/adapter-cost.ts
//   (BENCH_COST_FRAMEWORKS=koa,express BENCH_COST_OPERATIONS=read BENCH_COST_REQUESTS=20000 BENCH_COST_ROUNDS=5)
// CPU time on a shared machine moves by several µs between runs; for instruction counts,
// serve one side under callgrind (`--instr-atstart=no`, with TSX_TSCONFIG_PATH=bench/tsconfig.json)
// with `... adapter-cost.ts serve fastify adapter`, which prints its port, load it, and
// switch instrumentation on with `callgrind_control -i on <pid>` after the warm-up.

type Framework = 'koa' | 'express' | 'fastify';
type Side = 'adapter' | 'hand';

const ROW = {
  id: 7,
  name: 'Item 7',
  description: 'A bench item',
  category: 'c3',
  price: 12.5,
  last_sold: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: null,
};
const ETAG = '"3f2a9c"';
const PAGE = { items: Array.from({ length: 20 }, (_, i) => ({ ...ROW, id: i })), total: 2300 };
const TYPE = 'application/json; charset=utf-8';

const routes: RouteDescriptor[] = [
  {
    method: 'GET',
    path: '/items/:id',
    operation: 'items_read',
    dependencies: [],
    handler: async (req) => ({ status: 200, json: { ...ROW, id: Number(req.params.id) }, headers: { ETag: ETAG } }),
  },
  {
    method: 'GET',
    path: '/items',
    operation: 'items_list',
    dependencies: [],
    handler: async (req) => ({ status: 200, json: { ...PAGE, category: req.query.category } }),
  },
  {
    method: 'POST',
    path: '/items',
    operation: 'items_create',
    dependencies: [],
    handler: async (req) => ({ status: 201, json: { ...ROW, ...(req.body as object) } }),
  },
];

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return JSON.stringify(user + system);
};

/** One side's app on one framework, as a node request listener. */
async function buildApp(framework: Framework, side: Side): Promise<RequestListener> {
  if (framework === 'koa') {
    const app = new Koa();
    app.use(async (ctx, next) => (ctx.path === '/__cpu' ? void (ctx.body = cpu()) : next()));
    if (side === 'adapter') mountKoa(app, routes);
    else {
      const router = new Router();
      router.get('/items/:id', async (ctx) => {
        ctx.set('ETag', ETAG);
        ctx.type = TYPE;
        ctx.body = JSON.stringify({ ...ROW, id: Number(ctx.params.id) });
      });
      router.get('/items', async (ctx) => {
        ctx.type = TYPE;
        ctx.body = JSON.stringify({ ...PAGE, category: ctx.query.category });
      });
      router.post('/items', async (ctx) => {
        const body = await coBody.json(ctx.req, { limit: '1mb', strict: false });
        ctx.status = 201;
        ctx.type = TYPE;
        ctx.body = JSON.stringify({ ...ROW, ...body });
      });
      app.use(router.routes()).use(router.allowedMethods());
    }
    return app.callback();
  }
  if (framework === 'express') {
    const app = express();
    app.get('/__cpu', (_req, res) => void res.end(cpu()));
    if (side === 'adapter') mountExpress(app, routes);
    else {
      app.set('etag', false);
      app.use(express.json({ limit: '1mb', strict: false }));
      app.get('/items/:id', async (req, res) => {
        res.set('ETag', ETAG).json({ ...ROW, id: Number(req.params.id) });
      });
      app.get('/items', async (req, res) => void res.json({ ...PAGE, category: req.query.category }));
      app.post('/items', async (req, res) => void res.status(201).json({ ...ROW, ...req.body }));
    }
    return app;
  }
  const app = Fastify();
  app.get('/__cpu', async () => cpu());
  if (side === 'adapter') mountFastify(app, routes);
  else {
    app.get<{ Params: { id: string } }>('/items/:id', async (req, reply) =>
      reply
        .header('ETag', ETAG)
        .type(TYPE)
        .send(JSON.stringify({ ...ROW, id: Number(req.params.id) })),
    );
    app.get<{ Querystring: { category?: string } }>('/items', async (req, reply) =>
      reply.type(TYPE).send(JSON.stringify({ ...PAGE, category: req.query.category })),
    );
    app.post('/items', async (req, reply) =>
      reply
        .code(201)
        .type(TYPE)
        .send(JSON.stringify({ ...ROW, ...(req.body as object) })),
    );
  }
  await app.ready();
  return (req, res) => app.routing(req, res);
}

async function serve(framework: Framework, side: Side): Promise<number> {
  const dispatch = await buildApp(framework, side);
  return listening(createServer(dispatch).listen(0, '127.0.0.1'));
}

function listening(server: import('node:http').Server): Promise<number> {
  return new Promise((resolve) => server.once('listening', () => resolve((server.address() as { port: number }).port)));
}

const REQUESTS: Record<string, autocannon.Request & { method: string; path: string }> = {
  read: { method: 'GET', path: '/items/7' },
  list: { method: 'GET', path: '/items?category=c3&price__gte=10&sort=-price&offset=40&limit=20&count=true' },
  create: {
    method: 'POST',
    path: '/items',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'new', category: 'c1', price: 3 }),
  },
};

async function cpuNow(port: number): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${port}/__cpu`)).text());
}

async function load(port: number, request: (typeof REQUESTS)[string], amount: number): Promise<void> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 8,
    amount,
    requests: [request],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
}

async function measure(): Promise<void> {
  const frameworks = (process.env.BENCH_COST_FRAMEWORKS ?? 'koa,express,fastify').split(',') as Framework[];
  const operations = (process.env.BENCH_COST_OPERATIONS ?? 'read,list,create').split(',');
  const amount = Number(process.env.BENCH_COST_REQUESTS ?? 20_000);
  const rounds = Number(process.env.BENCH_COST_ROUNDS ?? 5);
  for (const framework of frameworks) {
    const servers = await Promise.all(
      (['hand', 'adapter'] as Side[]).map(async (side) => {
        const child = fork(__filename, ['serve', framework, side], { execArgv: process.execArgv });
        const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
        return { side, child, port };
      }),
    );
    for (const operation of operations) {
      const perRequest: Record<Side, number[]> = { hand: [], adapter: [] };
      for (const { port } of servers) await load(port, REQUESTS[operation], amount / 2);
      for (let round = 0; round < rounds; round++) {
        for (const { side, port } of servers) {
          const before = await cpuNow(port);
          await load(port, REQUESTS[operation], amount);
          perRequest[side].push((await cpuNow(port)) - before);
        }
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] / amount;
      const [hand, adapter] = [median(perRequest.hand), median(perRequest.adapter)];
      console.log(
        `${framework.padEnd(8)} ${operation.padEnd(7)} hand ${hand.toFixed(1)} µs  adapter ${adapter.toFixed(1)} µs  ` +
          `(${(adapter / hand).toFixed(2)}×, +${(adapter - hand).toFixed(1)} µs)`,
      );
    }
    for (const { child } of servers) child.kill();
  }
}

if (process.argv[2] === 'serve') {
  process.on('SIGINT', () => process.exit(0));
  void serve(process.argv[3] as Framework, process.argv[4] as Side).then((port) =>
    process.send ? process.send(port) : console.log(`port ${port}`),
  );
} else {
  void measure();
}
