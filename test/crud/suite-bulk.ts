// Bulk and upsert: every row of a request or none, one statement per batch.
import { beforeAll, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import { crudRouter, ForbiddenError, type Dependency } from '@crudsmith/core';
import { itemOptions, storedRow, type Api, type CrudEnv } from './kit';

export function describeBulk(env: CrudEnv): void {
  describe('bulk create, update and delete, and upsert', () => {
    let api: Api;
    let guarded: Api;
    const deny: Dependency = (req) => {
      if (req.headers['x-deny']) throw new ForbiddenError('denied');
    };
    const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      api.send(method, path, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      });
    const names = async (where: Record<string, unknown>) =>
      (await env.knex('items').where(where).orderBy('id')).map((row: { name: string }) => row.name);

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            filterConfig: { category: null, price__lt: null },
            bulk: { maxItems: 3, conflictColumns: ['name'] },
          }),
        ),
      );
      // The single-row operations' dependencies and auto fields apply to their bulk forms.
      guarded = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            path: '/guarded-bulk',
            bulk: true,
            createDeps: [deny],
            updateDeps: [deny],
            deleteDeps: [deny],
            createConfig: { autoFields: { category: () => 'auto' } },
            updateConfig: { autoFields: { description: () => 'stamped' } },
          }),
        ),
      );
    });

    it('creates every item in order and answers 201 with the rows as a read answers them', async () => {
      const res = await json('POST', '/items/bulk', [{ name: 'b1', price: 1 }, { name: 'b2' }]);
      expect(res.status).toBe(201);
      expect(res.body.map((row: { name: string }) => row.name)).toEqual(['b1', 'b2']);
      expect(res.body[0]).toMatchObject({ price: 1, category: null, updated_at: null });
      expect((await api.get(`/items/${res.body[1].id}`)).body).toEqual(res.body[1]);
    });

    it("answers 422 with each error located under its item's index, and writes none of them", async () => {
      const res = await json('POST', '/items/bulk', [{ name: 'ok1' }, { price: 'cheap' }, { name: 'ok3', id: 99 }]);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
        ['body', 1, 'price'],
        ['body', 2, 'id'],
      ]);
      expect(await names({ name: 'ok1' })).toEqual([]);
      const clash = await json('POST', '/items/bulk', [{ name: 'ok4' }, { name: 'Alpha' }]);
      expect(clash.status).toBe(409);
      expect(await names({ name: 'ok4' })).toEqual([]);
    });

    it('answers 413 for more items than the router takes, and 422 for a body that is not an array', async () => {
      const res = await json('POST', '/items/bulk', [{}, {}, {}, {}]);
      expect(res.status).toBe(413);
      expect(typeof res.body.detail).toBe('string');
      expect((await json('POST', '/items/bulk', { name: 'x' })).status).toBe(422);
    });

    it('updates every live row the filter matches in one request and answers the count', async () => {
      const res = await json('PATCH', '/items/bulk', { filter: { category: 'tools' }, set: { description: 'bulk' } });
      expect(res).toMatchObject({ status: 200, body: { count: 2 } });
      expect(await names({ description: 'bulk' })).toEqual(['Alpha', 'beta']);
      const unknown = await json('PATCH', '/items/bulk', { filter: { colour: 'red' }, set: { price: 1 } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(['body', 'filter', 'colour']);
    });

    it('refuses with 400 and changes nothing when Prefer: max-affected is lower than the rows matched', async () => {
      const set = { filter: { price__lt: 20 }, set: { description: 'capped' } };
      const refused = await json('PATCH', '/items/bulk', set, { prefer: 'max-affected=2' });
      expect(refused.status).toBe(400);
      expect(await names({ description: 'capped' })).toEqual([]);
      const gone = await json('DELETE', '/items/bulk', { filter: { price__lt: 20 } }, { prefer: 'max-affected=1' });
      expect(gone.status).toBe(400);
      expect(await names({ is_deleted: true })).toEqual([]);
    });

    it('soft-deletes the rows of the given ids, counting only the live ones', async () => {
      const res = await json('DELETE', '/items/bulk', { ids: [5, 6, 1000] });
      expect(res).toMatchObject({ status: 200, body: { count: 2 } });
      expect(await storedRow(env.knex, 'items', 5)).toMatchObject({ is_deleted: true, deleted_at: expect.anything() });
      expect((await api.get('/items/6')).status).toBe(404);
      expect((await json('DELETE', '/items/bulk', { ids: [5] })).body).toEqual({ count: 0 });
      const typo = await json('DELETE', '/items/bulk', { ids: ['five'] });
      expect(typo.status).toBe(422);
      expect(typo.body.detail[0].loc).toEqual(['body', 'ids']);
    });

    it("runs the single-row operations' dependencies and auto fields, and documents every bulk route", async () => {
      const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
        guarded.send(method, path, {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        });
      const denied = { 'x-deny': '1' };
      expect((await send('POST', '/guarded-bulk/bulk', [{ name: 'g1' }], denied)).status).toBe(403);
      expect((await send('PATCH', '/guarded-bulk/bulk', { filter: {}, set: {} }, denied)).status).toBe(403);
      expect((await send('DELETE', '/guarded-bulk/bulk', { ids: [1] }, denied)).status).toBe(403);
      expect((await send('PUT', '/guarded-bulk/600', { name: 'g0' }, denied)).status).toBe(403);
      const created = await send('POST', '/guarded-bulk/bulk', [{ name: 'g1' }, { name: 'g2' }]);
      expect(created.body.map((row: { category: string }) => row.category)).toEqual(['auto', 'auto']);
      expect((await send('POST', '/guarded-bulk/bulk', [{ category: 'mine' }])).status).toBe(422);
      const put = await send('PUT', `/guarded-bulk/${created.body[0].id}`, { price: 3 });
      expect(put).toMatchObject({ status: 200, body: { category: 'auto', description: 'stamped', price: 3 } });
      const routes = crudRouter(itemOptions(env.knex, { bulk: true })).routes;
      for (const operation of ['items_bulk_create', 'items_bulk_update', 'items_bulk_delete', 'items_upsert']) {
        const doc = routes.find((route) => route.operation === operation)?.doc;
        expect(doc?.requestBody, operation).toBeDefined();
        expect(Object.keys(doc!.responses!), operation).toContain('422');
      }
    });

    it('PUT creates the row of an id with 201, then replaces the fields it gives with 200', async () => {
      const created = await json('PUT', '/items/500', { name: 'put', price: 2 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 500, name: 'put', price: 2 });
      const replaced = await json('PUT', '/items/500', { name: 'put2' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ id: 500, name: 'put2', price: 2, updated_at: expect.any(String) });
      expect((await api.get('/items/500')).body).toEqual(replaced.body);
      // Another row's unique value is a conflict, never an update of that row.
      expect((await json('PUT', '/items/501', { name: 'Alpha' })).status).toBe(409);
    });

    it('upserts on a declared unique column with on_conflict, and refuses any other column with 400', async () => {
      const res = await json('POST', '/items/bulk?on_conflict=name', [
        { name: 'Gamma', price: 7 },
        { name: 'up-new', price: 8 },
      ]);
      expect(res.status).toBe(201);
      expect(res.body.map((row: { price: number }) => row.price)).toEqual([7, 8]);
      expect(res.body[0].id).toBe(3);
      expect((await storedRow(env.knex, 'items', 3))?.category).toBe('garden');
      expect((await json('POST', '/items/bulk?on_conflict=category', [{ name: 'x' }])).status).toBe(400);
    });
  });

  describe('upsert on one unique column of a table with another', () => {
    // `name`'s index comes first, so MariaDB's ON DUPLICATE KEY meets a row by it before `sku`'s.
    class Sku extends Model {
      static override tableName = 'bulk_skus';
      static override jsonSchema = {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          sku: { type: 'string' },
          price: { type: 'integer' },
        },
      };
    }
    let api: Api;
    const upsert = (items: object[]) =>
      api.send('POST', '/skus/bulk?on_conflict=sku', {
        body: JSON.stringify(items),
        headers: { 'content-type': 'application/json' },
      });
    const stored = async () =>
      (await env.knex('bulk_skus').select('sku', 'name', 'price').orderBy('sku')).map((row) => ({
        ...row,
        price: Number(row.price),
      }));
    const seeded = [
      { sku: 'A', name: 'alpha', price: 1 },
      { sku: 'B', name: 'beta', price: 2 },
      { sku: 'D', name: 'delta', price: 4 },
    ];

    beforeAll(async () => {
      await env.knex.schema.createTable('bulk_skus', (t) => {
        t.increments('id');
        t.string('name', 20).notNullable().unique();
        t.string('sku', 20).notNullable().unique();
        t.integer('price');
      });
      await env.knex('bulk_skus').insert(seeded);
      api = await env.serve(
        crudRouter({
          session: env.knex,
          model: Sku,
          path: '/skus',
          createSchema: ['id', 'sku', 'name', 'price'],
          updateSchema: ['name', 'price'],
          selectSchema: ['sku', 'name', 'price'],
          bulk: { conflictColumns: ['sku'] },
        }),
      );
    });

    it("refuses with the same 409 on every engine an item whose other unique value is another row's, and writes no item", async () => {
      const refused = { status: 409, body: { detail: 'Duplicate value: a record with this value already exists' } };
      // An item setting its own row's name to another row's, one creating a row with it, and
      // one creating a row with its id: MariaDB's insert meets that row first and would update it.
      const { id } = await env.knex('bulk_skus').where({ sku: 'B' }).first('id');
      for (const clash of [
        { sku: 'D', name: 'beta', price: 9 },
        { sku: 'N', name: 'beta', price: 9 },
        { id, sku: 'N', name: 'nu', price: 9 },
      ]) {
        const res = await upsert([{ sku: 'C', name: 'gamma', price: 3 }, { sku: 'A', name: 'alpha', price: 7 }, clash]);
        expect(res).toEqual(expect.objectContaining(refused));
        expect(await stored()).toEqual(seeded);
      }
    });

    it('refuses with the same 422 on every engine items that name one row twice, and writes none of them', async () => {
      const send = (column: string, items: object[]) =>
        api.send('POST', `/skus/bulk?on_conflict=${column}`, {
          body: JSON.stringify(items),
          headers: { 'content-type': 'application/json' },
        });
      const issues = (res: { body: { detail: { loc: unknown[]; msg: string; type: string }[] } }) =>
        res.body.detail.map(({ loc, msg, type }) => ({ loc, msg, type }));
      // PostgreSQL would refuse the statement, MariaDB and SQLite apply both items.
      const res = await send('sku', [
        { sku: 'A', name: 'alpha', price: 5 },
        { sku: 'C', name: 'gamma', price: 3 },
        { sku: 'A', name: 'alpha', price: 6 },
        { sku: 'C', name: 'gamma', price: 7 },
      ]);
      expect(res.status).toBe(422);
      expect(issues(res)).toEqual([
        {
          loc: ['body', 2, 'sku'],
          msg: 'Item 0 gives the same sku: an upsert writes each row once',
          type: 'duplicate_in_request',
        },
        {
          loc: ['body', 3, 'sku'],
          msg: 'Item 1 gives the same sku: an upsert writes each row once',
          type: 'duplicate_in_request',
        },
      ]);
      const { id } = await env.knex('bulk_skus').where({ sku: 'A' }).first('id');
      const byId = await send('id', [
        { id, sku: 'A', name: 'alpha', price: 5 },
        { id: String(id), sku: 'A', name: 'alpha', price: 6 },
      ]);
      expect(byId.status).toBe(422);
      expect(issues(byId)).toEqual([
        {
          loc: ['body', 1, 'id'],
          msg: 'Item 0 gives the same id: an upsert writes each row once',
          type: 'duplicate_in_request',
        },
      ]);
      expect(await stored()).toEqual(seeded);
    });

    it('sent again without the clash, creates and updates, an item meeting its own row by either unique value', async () => {
      // Items of different fields go in separate batches: the refusal rolls back the earlier ones.
      const items = [
        { sku: 'C', name: 'gamma', price: 3 },
        { sku: 'A', name: 'alpha' },
        { sku: 'B', name: 'bravo', price: 6 },
        { sku: 'N', name: 'alpha', price: 9 },
      ];
      expect((await upsert(items)).status).toBe(409);
      expect(await stored()).toEqual(seeded);
      const res = await upsert([...items.slice(0, 3), { sku: 'N', name: 'nu', price: 9 }]);
      expect(res.status).toBe(201);
      expect(res.body).toEqual([
        { sku: 'C', name: 'gamma', price: 3 },
        { sku: 'A', name: 'alpha', price: 1 },
        { sku: 'B', name: 'bravo', price: 6 },
        { sku: 'N', name: 'nu', price: 9 },
      ]);
      expect(await stored()).toEqual([
        { sku: 'A', name: 'alpha', price: 1 },
        { sku: 'B', name: 'bravo', price: 6 },
        { sku: 'C', name: 'gamma', price: 3 },
        { sku: 'D', name: 'delta', price: 4 },
        { sku: 'N', name: 'nu', price: 9 },
      ]);
    });

    it('refuses values its unique index holds equal as one row: on MariaDB, ones differing in case', async () => {
      const before = await stored();
      // A new row made by the first item, and a stored row met by both (items of different fields: two batches).
      const requests = [
        [
          { sku: 'E', name: 'echo', price: 5 },
          { sku: 'e', name: 'echo2', price: 6 },
        ],
        [
          { sku: 'b', name: 'bee', price: 8 },
          { sku: 'B', name: 'bravo' },
        ],
      ];
      for (const items of requests) {
        const res = await upsert(items);
        if (env.engine === 'mysql') {
          // utf8mb4_general_ci holds 'E' and 'e' equal: one row, which the second item would update.
          expect(res.status).toBe(422);
          expect(res.body.detail).toEqual([
            {
              loc: ['body', 1, 'sku'],
              msg: 'Item 0 gives the same sku: an upsert writes each row once',
              type: 'duplicate_in_request',
            },
          ]);
          expect(await stored()).toEqual(before);
        } else expect(res.status).toBe(201);
      }
      if (env.engine !== 'mysql') {
        expect((await stored()).length).toBe(before.length + 3);
        await env.knex('bulk_skus').whereIn('sku', ['E', 'e', 'b']).delete();
      }
    });

    it("updates an item's row when it gives the row's id, refuses with 409 another id, and never changes a row's id", async () => {
      const ids = async (): Promise<Record<string, number>> =>
        Object.fromEntries((await env.knex('bulk_skus').select('sku', 'id')).map((row) => [row.sku, Number(row.id)]));
      const before = await ids();
      const free = Math.max(...Object.values(before)) + 100;
      // Items with and without an id go in separate batches; the refusal rolls back the earlier ones.
      for (const stranger of [free, before.C]) {
        const res = await upsert([
          { sku: 'A', name: 'alpha', price: 11 },
          { id: stranger, sku: 'B', name: 'bravo', price: 12 },
        ]);
        expect(res.status).toBe(409);
        expect(await ids()).toEqual(before);
        expect((await stored())[0]).toEqual({ sku: 'A', name: 'alpha', price: 1 });
      }
      const res = await upsert([
        { sku: 'A', name: 'alpha', price: 11 },
        { id: before.B, sku: 'B', name: 'bravo', price: 12 },
        { sku: 'M', name: 'mike', price: 13 },
        { id: free, sku: 'K', name: 'kilo', price: 14 },
      ]);
      expect(res.status).toBe(201);
      expect(res.body).toEqual([
        { sku: 'A', name: 'alpha', price: 11 },
        { sku: 'B', name: 'bravo', price: 12 },
        { sku: 'M', name: 'mike', price: 13 },
        { sku: 'K', name: 'kilo', price: 14 },
      ]);
      const after = await ids();
      expect(after).toMatchObject({ ...before, K: free });
      expect(Object.values(before)).not.toContain(after.M);
      expect(after.M).not.toBe(free);
    });
  });
}
