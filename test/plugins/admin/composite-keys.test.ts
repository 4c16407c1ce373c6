// A model whose primary key has several columns, in the admin: its rows' links name the
// whole key (each value percent-encoded, joined by a comma), and its update form, its REST
// endpoints, bulk delete and the trash reach exactly that row.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../fixtures/db';
import { createOrderLines, OrderLine } from '../../fixtures/order-lines';
import { koaHarness } from '../../adapters/koa-harness';
import { startAdminApp, type AdminEnv, type Client } from './fixture';

describe.each(ENGINES)('the admin over a composite primary key (%s)', (engine) => {
  let env: AdminEnv;
  let client: Client;
  beforeAll(async () => {
    env = await startAdminApp(koaHarness, engine, {
      models: {
        lines: {
          model: OrderLine,
          allowedActions: ['view', 'update', 'delete'],
          createSchema: ['order_id', 'line_no', 'product'],
          updateSchema: ['product'],
        },
      },
    });
    await createOrderLines(env.db.knex);
    await env.db.knex('order_lines').insert([
      { order_id: 1, line_no: 1, product: 'hammer' },
      { order_id: 1, line_no: 2, product: 'nails' },
      { order_id: 2, line_no: 1, product: 'saw' },
    ]);
    client = await env.signedIn();
  });
  afterAll(() => env?.close());
  const stored = async () =>
    (await env.db
      .knex('order_lines')
      .where('is_deleted', false)
      .orderBy(['order_id', 'line_no'])
      .select('order_id', 'line_no', 'product')) as { order_id: number; line_no: number; product: string }[];

  it("links each row by its whole key, and the link opens that row's form", async () => {
    const list = await client.get('/admin/lines/');
    expect(list.status).toBe(200);
    expect(list.text).toContain('href="/admin/lines/update/1%2C2"');
    const form = await client.get('/admin/lines/update/1%2C2');
    expect(form.status).toBe(200);
    expect(form.text).toContain('nails');
    expect((await client.get('/admin/lines/update/1%2C9')).status).toBe(404);
    expect((await client.get('/admin/lines/update/1')).status).toBe(404);
  });

  it('updates the row of the form, and no other', async () => {
    const answer = await client.postForm('/admin/lines/form_update/1%2C2', { product: 'screws' });
    expect(answer.status).toBe(303);
    expect(await stored()).toEqual([
      { order_id: 1, line_no: 1, product: 'hammer' },
      { order_id: 1, line_no: 2, product: 'screws' },
      { order_id: 2, line_no: 1, product: 'saw' },
    ]);
  });

  it('serves the row at /crud/{model}/{a}/{b}, and bulk-deletes rows by their keys', async () => {
    const row = await client.get('/admin/crud/lines/2/1');
    expect(row.status).toBe(200);
    expect(row.json).toMatchObject({ order_id: 2, line_no: 1, product: 'saw' });
    const removed = await client.request('DELETE', '/admin/lines/bulk-delete', {
      json: { ids: ['1,1', '2,1'] },
      headers: { 'x-csrf-token': client.csrf, accept: 'text/html' },
    });
    expect(removed.status).toBe(200);
    expect(await stored()).toEqual([{ order_id: 1, line_no: 2, product: 'screws' }]);
  });

  it('lists soft-deleted rows in the trash by their whole key, and restores the one chosen', async () => {
    const trash = await client.get('/admin/lines/trash');
    expect(trash.status).toBe(200);
    expect(trash.text).toContain('value="2,1"');
    expect((await client.postForm('/admin/lines/trash/restore', { ids: '2,1' })).status).toBe(303);
    expect((await stored()).map((row) => [row.order_id, row.line_no])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });
});
