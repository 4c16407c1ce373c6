// A model whose primary key has several columns, in the admin: its rows' links name the
// whole key (each value percent-encoded, joined by a comma), and its update form, its REST
// endpoints and bulk delete reach exactly that row.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import { ENGINES } from '../../fixtures/db';
import { koaHarness } from '../../adapters/koa-harness';
import { startAdminApp, type AdminEnv, type Client } from './fixture';

class OrderLine extends Model {
  static override tableName = 'order_lines';
  static override get idColumn() {
    return ['order_id', 'line_no'];
  }
  static override jsonSchema = {
    type: 'object',
    properties: { order_id: { type: 'integer' }, line_no: { type: 'integer' }, product: { type: 'string', maxLength: 50 } },
  };
}

describe.each(ENGINES)('the admin over a composite primary key (%s)', (engine) => {
  let env: AdminEnv;
  let client: Client;
  beforeAll(async () => {
    env = await startAdminApp(koaHarness, engine, {
      models: { lines: { model: OrderLine, allowedActions: ['view', 'update', 'delete'], createSchema: ['order_id', 'line_no', 'product'], updateSchema: ['product'] } },
    });
    await env.db.knex.schema.createTable('order_lines', (t) => {
      t.integer('order_id').notNullable();
      t.integer('line_no').notNullable();
      t.string('product', 50).notNullable();
      t.primary(['order_id', 'line_no']);
    });
    await env.db.knex('order_lines').insert([{ order_id: 1, line_no: 1, product: 'hammer' }, { order_id: 1, line_no: 2, product: 'nails' }, { order_id: 2, line_no: 1, product: 'saw' }]);
    client = await env.signedIn();
  });
  afterAll(() => env?.close());
  const stored = async () => (await env.db.knex('order_lines').orderBy(['order_id', 'line_no']).select('order_id', 'line_no', 'product')) as { order_id: number; line_no: number; product: string }[];

  it('links each row by its whole key, and the link opens that row\'s form', async () => {
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
    const removed = await client.request('DELETE', '/admin/lines/bulk-delete', { json: { ids: ['1,1', '2,1'] }, headers: { 'x-csrf-token': client.csrf, accept: 'text/html' } });
    expect(removed.status).toBe(200);
    expect(await stored()).toEqual([{ order_id: 1, line_no: 2, product: 'screws' }]);
  });
});
