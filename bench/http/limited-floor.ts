import type { IncomingMessage } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import { rateLimitHeaders, windowStart } from '@crudsmith/rate-limit';
import type { Engine } from '../lib/db';
import { rowMapper } from '../lib/items';
import { BENCH_LIMIT, BENCH_PERIOD } from '../lib/reference-limiters';
import { listen } from './crudsmith-apps';
import { idOf, notFound, type Answer } from './floor-input';
import type { Framework, Listening } from './protocol';

// The rate-limit suite's natural floor: the limited read written by hand in each framework,
// the way a competent engineer writes it without a limiter library. One Redis round trip
// per request (a script doing INCR, and EXPIRE on a window's first request, so a window
// never outlives its period), a 429 past the limit, the same rate-limit headers on every
// answer, then one select of the live row (every column, as the guarded crudsmith route
// answers, which declares no select schema).

// INCR, and EXPIRE when this request opened the window: atomic, one round trip.
const COUNT_SCRIPT =
  "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n";
const POLICY = { limit: BENCH_LIMIT, period: BENCH_PERIOD, name: 'default' };

type Counting = Redis & { countRequest(key: string, period: number): Promise<number> };

/** What the limited read answers, with the rate-limit headers to send. */
interface LimitedAnswer extends Answer {
  headers: Record<string, string>;
}

/** Serves one limited read: the request, its path (the counter's key) and the id asked. */
export type LimitedRead = (req: IncomingMessage, path: string, id: string) => Promise<LimitedAnswer>;

/** The limited read: count (client address, path) in this window, then read unless past the limit. */
export function limitedRead(knex: Knex, engine: Engine, redis: Redis): LimitedRead {
  const map = rowMapper(engine);
  const read = async (idText: string): Promise<Answer> => {
    const id = idOf(idText);
    if (id === undefined) return notFound;
    const row = await knex('items').where({ id, is_deleted: false }).first();
    return row ? { status: 200, json: map(row) } : notFound;
  };
  redis.defineCommand('countRequest', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  const counting = redis as Counting;
  return async (req, path, id) => {
    const now = Math.floor(Date.now() / 1000);
    const window = windowStart(now, BENCH_PERIOD);
    const count = await counting.countRequest(`floor:${req.socket.remoteAddress}:${path}:${window}`, BENCH_PERIOD);
    const allowed = count <= BENCH_LIMIT;
    const reset = window + BENCH_PERIOD;
    const headers = rateLimitHeaders(
      POLICY,
      { allowed, remaining: Math.max(0, BENCH_LIMIT - count), reset, retryAfter: reset - now },
      now,
    );
    if (!allowed)
      return {
        status: 429,
        json: { detail: 'Rate limit exceeded' },
        headers: { ...headers, 'Retry-After': String(reset - now) },
      };
    return { ...(await read(id)), headers };
  };
}

/** Starts the hand-written limited read of `prefix`/:id on `framework`, at 127.0.0.1. */
export async function startLimitedFloor(framework: Framework, prefix: string, serve: LimitedRead): Promise<Listening> {
  switch (framework) {
    case 'koa': {
      const router = new Router();
      router.get(`${prefix}/:id`, async (ctx) => {
        const answer = await serve(ctx.req, ctx.path, ctx.params.id);
        ctx.set(answer.headers);
        ctx.status = answer.status;
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = JSON.stringify(answer.json);
      });
      return listen(new Koa().use(router.routes()).listen(0, '127.0.0.1'));
    }
    case 'express': {
      const app = express();
      app.set('etag', false);
      app.get(`${prefix}/:id`, async (req, res) => {
        const answer = await serve(req, req.path, req.params.id);
        res.set(answer.headers).status(answer.status).json(answer.json);
      });
      return listen(app.listen(0, '127.0.0.1'));
    }
    case 'fastify': {
      const app = Fastify();
      app.get<{ Params: { id: string } }>(`${prefix}/:id`, async (req, reply) => {
        const answer = await serve(req.raw, req.url.split('?')[0], req.params.id);
        return reply
          .code(answer.status)
          .headers(answer.headers)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(answer.json));
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: app.server, close: () => app.close() };
    }
  }
}
