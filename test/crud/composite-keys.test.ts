// A model whose primary key has several columns: every generated operation names a row by
// one path segment per key column, in the model's idColumn order (/lines/{order_id}/{line_no}),
// on every adapter and engine, and the OpenAPI document says so.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { crudRouter, type CrudRouter } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { createOrderLines, OrderLine } from '../fixtures/order-lines';
import type { AdapterHarness, MountedServer } from '../adapters/conformance';
import { koaHarness } from '../adapters/koa-harness';
import { expressHarness } from '../adapters/express-harness';
import { fastifyHarness } from '../adapters/fastify-harness';

class LineCreate {
  @IsInt() order_id!: number;
  @IsInt() line_no!: number;
  @IsString() product!: string;
  @IsOptional() @IsInt() qty?: number;
}
class LineUpdate {
  @IsOptional() @IsString() product?: string;
  @IsOptional() @IsInt() qty?: number;
}
class LineDelete {}

type Line = { order_id: number; line_no: number };

const HARNESSES: AdapterHarness[] = [koaHarness, expressHarness, fastifyHarness];

describe.each(ENGINES)('composite primary keys on %s', (engine) => {
  let db: TestDatabase;
  let router: CrudRouter;
  beforeAll(async () => {
    db = await openDatabase(engine);
    await createOrderLines(db.knex);
    router = crudRouter({
      session: db.knex,
      model: OrderLine,
      path: '/lines',
      createSchema: LineCreate,
      updateSchema: LineUpdate,
      deleteSchema: LineDelete,
      selectSchema: LineCreate,
    });
  });
  afterAll(() => db?.destroy());

  it('names a row by one path segment per key column, and documents each as a path parameter', () => {
    const paths = router.routes.map((route) => `${route.method} ${route.path}`).sort();
    expect(paths).toEqual([
      'DELETE /lines/:order_id/:line_no',
      'DELETE /lines/db_delete/:order_id/:line_no',
      'GET /lines',
      'GET /lines/:order_id/:line_no',
      'PATCH /lines/:order_id/:line_no',
      'POST /lines',
      'POST /lines/:order_id/:line_no/restore',
    ]);
    const read = router.routes.find((route) => route.method === 'GET' && route.path.includes(':'))!;
    expect(read.doc?.parameters?.filter((parameter) => parameter.in === 'path')).toEqual([
      { name: 'order_id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'line_no', in: 'path', required: true, schema: { type: 'integer' } },
    ]);
  });

  describe.each(HARNESSES)('over HTTP on %s', (harness) => {
    let server: MountedServer;
    beforeAll(async () => {
      await db.knex('order_lines').del();
      server = await harness.mount(router.routes, {});
    });
    afterAll(() => server?.close());
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    };

    it('creates, reads, updates, deletes, restores and removes the row its key names, and no other', async () => {
      for (const [order_id, line_no, product] of [
        [1, 1, 'hammer'],
        [1, 2, 'nails'],
        [2, 1, 'saw'],
      ] as const) {
        expect((await call('POST', '/lines', { order_id, line_no, product })).status).toBe(201);
      }
      expect((await call('POST', '/lines', { order_id: 1, line_no: 2, product: 'again' })).status).toBe(409);
      expect(await call('GET', '/lines/1/2')).toEqual({
        status: 200,
        json: { order_id: 1, line_no: 2, product: 'nails', qty: 1 },
      });
      expect((await call('GET', '/lines/2/2')).status).toBe(404);
      const bad = await call('GET', '/lines/1/x');
      expect(bad.status).toBe(422);
      expect(bad.json.detail[0].loc).toEqual(['path', 'line_no']);

      expect((await call('PATCH', '/lines/1/2', { qty: 5 })).status).toBe(200);
      expect((await call('GET', '/lines/1/2')).json).toMatchObject({ qty: 5 });
      expect((await call('GET', '/lines/1/1')).json).toMatchObject({ qty: 1 });
      expect((await call('PATCH', '/lines/3/1', { qty: 5 })).status).toBe(404);

      expect((await call('DELETE', '/lines/1/1')).status).toBe(200);
      expect((await call('GET', '/lines/1/1')).status).toBe(404);
      expect((await call('GET', '/lines')).json.data.map((row: Line) => [row.order_id, row.line_no])).toEqual([
        [1, 2],
        [2, 1],
      ]);
      expect(await call('POST', '/lines/1/1/restore')).toEqual({
        status: 200,
        json: { order_id: 1, line_no: 1, product: 'hammer', qty: 1 },
      });
      expect((await call('POST', '/lines/1/1/restore')).status).toBe(404);

      expect((await call('DELETE', '/lines/db_delete/2/1')).status).toBe(200);
      expect(await db.knex('order_lines').orderBy(['order_id', 'line_no']).select('order_id', 'line_no')).toEqual([
        { order_id: 1, line_no: 1 },
        { order_id: 1, line_no: 2 },
      ]);
    });

    it('orders lists by every key column, so cursor pages neither skip nor repeat a row', async () => {
      await db.knex('order_lines').del();
      for (const [order_id, line_no] of [
        [2, 1],
        [1, 3],
        [1, 1],
        [2, 2],
        [1, 2],
      ])
        await call('POST', '/lines', { order_id, line_no, product: 'x' });
      const seen: number[][] = [];
      let cursor = '';
      do {
        const page = await call('GET', `/lines?sort=product&limit=2&cursor=${cursor}`);
        expect(page.status).toBe(200);
        seen.push(...page.json.data.map((row: Line) => [row.order_id, row.line_no]));
        cursor = page.json.next_cursor ?? '';
      } while (cursor);
      expect(seen).toEqual([
        [1, 1],
        [1, 2],
        [1, 3],
        [2, 1],
        [2, 2],
      ]);
    });
  });
});
