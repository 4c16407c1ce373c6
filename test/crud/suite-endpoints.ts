// The generated endpoints: the operation table, the answers of create, read, update,
// delete, db_delete and restore, and their errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter } from '@crudsmith/core';
import { Book } from '../fixtures/models';
import { itemOptions, storedRow, type Api, type CrudEnv } from './kit';
import { BookCreate, BookUpdate, ITEM_READ_FIELDS } from './schemas';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function describeEndpoints(env: CrudEnv): void {
  describe('generated endpoints', () => {
    let api: Api;
    let plain: Api;
    let auto: Api;
    let books: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex)));
      plain = await env.serve(crudRouter(itemOptions(env.knex, { path: '/plain', selectSchema: undefined })));
      auto = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            path: '/auto',
            selectSchema: undefined,
            createConfig: { autoFields: { category: () => 'server-set' } },
          }),
        ),
      );
      books = await env.serve(
        crudRouter({
          session: env.knex,
          model: Book,
          path: '/books',
          createSchema: BookCreate,
          updateSchema: BookUpdate,
        }),
      );
    });

    describe('create: POST /{model}', () => {
      it('answers 201 with the created item exactly as a later GET answers it (selectSchema)', async () => {
        const created = await api.post('/items', {
          name: 'Created',
          price: 12.5,
          last_sold: '2024-05-01T10:00:00.123Z',
        });
        expect(created.status).toBe(201);
        expect(Object.keys(created.body).sort()).toEqual([...ITEM_READ_FIELDS].sort());
        expect(created.body).toMatchObject({
          name: 'Created',
          price: 12.5,
          description: null,
          category: null,
          last_sold: '2024-05-01T10:00:00.123Z',
          updated_at: null,
        });
        const read = await api.get(`/items/${created.body.id}`);
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created.body);
      });

      it('answers datetimes as ISO 8601 in UTC with Z, and decimals as JSON numbers', async () => {
        const { body } = await api.post('/items', {
          name: 'Wire',
          price: 7.25,
          last_sold: '2024-06-01T12:00:00+02:00',
        });
        expect(body.created_at).toMatch(ISO_UTC);
        expect(body.last_sold).toBe('2024-06-01T10:00:00.000Z');
        expect(body.price).toBe(7.25);
        expect(typeof body.id).toBe('number');
      });

      it('answers 201 null without a selectSchema, and stores the item', async () => {
        const res = await plain.post('/plain', { name: 'No select', category: 'misc' });
        expect(res.status).toBe(201);
        expect(res.body).toBeNull();
        expect((await env.knex('items').where({ name: 'No select' })).length).toBe(1);
      });

      it('answers the stored object, auto fields included, when auto fields are used', async () => {
        const res = await auto.post('/auto', { name: 'Auto', price: 1 });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({
          name: 'Auto',
          price: 1,
          category: 'server-set',
          is_deleted: false,
          deleted_at: null,
        });
        expect(res.body.created_at).toMatch(ISO_UTC);
        expect(await storedRow(env.knex, 'items', res.body.id)).toMatchObject({
          category: 'server-set',
          is_deleted: false,
        });
      });

      it('answers 409 when a unique constraint refuses the value', async () => {
        expect((await api.post('/items', { name: 'Unique one' })).status).toBe(201);
        const again = await api.post('/items', { name: 'Unique one' });
        expect(again.status).toBe(409);
        expect(typeof again.body.detail).toBe('string');
      });

      it('answers 422 {detail:[{loc,msg,type}]} for a value of the wrong type', async () => {
        const res = await api.post('/items', { name: 'Typed', price: 'cheap' });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([
          { loc: ['body', 'price'], msg: expect.any(String), type: expect.any(String) },
        ]);
      });

      it('answers 422 for fields the schema does not declare (id, created_at)', async () => {
        const res = await api.post('/items', { name: 'Sneaky', id: 999, created_at: '2020-01-01T00:00:00Z' });
        expect(res.status).toBe(422);
        const locs = res.body.detail.map((issue: { loc: unknown[] }) => issue.loc);
        expect(locs).toEqual(
          expect.arrayContaining([
            ['body', 'id'],
            ['body', 'created_at'],
          ]),
        );
        for (const issue of res.body.detail)
          expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
        expect(await env.knex('items').where({ name: 'Sneaky' })).toEqual([]);
      });

      it('answers 422 for an auto field sent by the client', async () => {
        const res = await auto.post('/auto', { name: 'Forged', category: 'mine' });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'category'] })]);
      });

      it('answers 400 for malformed JSON, 422 for a body that is not an object', async () => {
        const malformed = await api.send('POST', '/items', {
          body: '{"name":',
          headers: { 'content-type': 'application/json' },
        });
        expect(malformed.status).toBe(400);
        expect(typeof malformed.body.detail).toBe('string');
        const array = await api.post('/items', [{ name: 'x' }]);
        expect(array.status).toBe(422);
        expect(array.body.detail[0].loc).toEqual(['body']);
        const missing = await api.send('POST', '/items', {});
        expect(missing.status).toBe(422);
      });

      it('answers 413 for a body over 1 MiB and 400 for one nested deeper than 64 levels, writing nothing', async () => {
        const big = await api.post('/items', { name: 'Big', description: 'x'.repeat(1024 * 1024) });
        expect(big.status).toBe(413);
        const deep = await api.send('POST', '/items', {
          body: `{"name":"Deep","description":${'['.repeat(70)}${']'.repeat(70)}}`,
          headers: { 'content-type': 'application/json' },
        });
        expect(deep.status).toBe(400);
        expect(await env.knex('items').whereIn('name', ['Big', 'Deep'])).toEqual([]);
      });
    });

    describe('read: GET /{model}/{id}', () => {
      it('answers 200 with the item in the select schema', async () => {
        const res = await api.get('/items/1');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          id: 1,
          name: 'Alpha',
          description: 'A sturdy hammer for nails',
          category: 'tools',
          price: 10,
          last_sold: '2024-01-10T12:00:00.000Z',
          created_at: expect.stringMatching(ISO_UTC),
          updated_at: null,
        });
      });

      it('answers 404 {"detail":"Item not found"} for a missing id', async () => {
        const res = await api.get('/items/424242');
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Item not found' });
      });

      it('answers 400 for a path that is not valid percent-encoded UTF-8', async () => {
        expect((await api.get('/items/%C3%28')).status).toBe(400);
      });

      it('answers 422 for a malformed id, 404 for one beyond the column range', async () => {
        for (const id of ['abc', '1.5', '1e3', '0x10']) {
          const res = await api.get(`/items/${id}`);
          expect(res.status, id).toBe(422);
          expect(res.body.detail[0].loc).toEqual(['path', 'id']);
        }
        expect((await api.get('/items/99999999999999999999')).status).toBe(404);
      });
    });

    describe('update: PATCH /{model}/{id}', () => {
      it('answers 200 null and stores the change, setting updated_at', async () => {
        const res = await api.patch('/items/2', { price: 30, description: null });
        expect(res.status).toBe(200);
        expect(res.body).toBeNull();
        const read = await api.get('/items/2');
        expect(read.body).toMatchObject({ id: 2, name: 'beta', price: 30, description: null });
        expect(read.body.updated_at).toMatch(ISO_UTC);
      });

      it('answers 404 {"detail":"Item not found"} for a missing id', async () => {
        const res = await api.patch('/items/424242', { price: 1 });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Item not found' });
      });

      it('answers 422 for a wrong type or an undeclared field, and changes nothing', async () => {
        const wrong = await api.patch('/items/3', { price: 'free' });
        expect(wrong.status).toBe(422);
        expect(wrong.body.detail[0].loc).toEqual(['body', 'price']);
        const extra = await api.patch('/items/3', { id: 77 });
        expect(extra.status).toBe(422);
        expect(extra.body.detail[0].loc).toEqual(['body', 'id']);
        expect((await api.get('/items/3')).body).toMatchObject({ id: 3, price: 5.25 });
      });

      it('answers 409 when the change hits a unique constraint', async () => {
        const res = await api.patch('/items/3', { name: 'Alpha' });
        expect(res.status).toBe(409);
      });

      it('answers 422 naming the field when a NOT NULL column is sent as null, and changes nothing', async () => {
        const res = await books.patch('/books/5', { title: null });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([
          { loc: ['body', 'title'], msg: 'A required value is missing', type: 'missing' },
        ]);
        expect((await env.knex('books').where({ id: 5 }).first())?.title).not.toBeNull();
      });

      it('accepts an empty body on a model without an update timestamp', async () => {
        const res = await books.patch('/books/5', {});
        expect(res.status).toBe(200);
        expect(res.body).toBeNull();
      });
    });

    describe('delete: DELETE /{model}/{id} and /{model}/db_delete/{id}', () => {
      let id: number;

      beforeAll(async () => {
        id = (await api.post('/items', { name: 'Doomed', category: 'tools' })).body.id;
      });

      it('soft-deletes: 200 null, flag and timestamp set, the row kept', async () => {
        const res = await api.del(`/items/${id}`);
        expect(res.status).toBe(200);
        expect(res.body).toBeNull();
        const row = await storedRow(env.knex, 'items', id);
        expect(row?.is_deleted).toBe(true);
        expect(row?.deleted_at).not.toBeNull();
      });

      it('hides a soft-deleted row from read, read-many, update and delete (a second delete is 404)', async () => {
        expect(await api.get(`/items/${id}`)).toMatchObject({ status: 404, body: { detail: 'Item not found' } });
        const list = await api.get('/items?limit=1000');
        expect(list.body.data.map((item: { id: number }) => item.id)).not.toContain(id);
        expect((await api.patch(`/items/${id}`, { price: 1 })).status).toBe(404);
        expect(await api.del(`/items/${id}`)).toMatchObject({ status: 404, body: { detail: 'Item not found' } });
      });

      it('db_delete removes a soft-deleted row for good', async () => {
        const res = await api.del(`/items/db_delete/${id}`);
        expect(res.status).toBe(200);
        expect(res.body).toBeNull();
        expect(await storedRow(env.knex, 'items', id)).toBeUndefined();
        expect(await api.del(`/items/db_delete/${id}`)).toMatchObject({
          status: 404,
          body: { detail: 'Item not found' },
        });
      });

      it('db_delete removes an active row', async () => {
        const other = (await api.post('/items', { name: 'Gone' })).body.id;
        expect((await api.del(`/items/db_delete/${other}`)).status).toBe(200);
        expect(await storedRow(env.knex, 'items', other)).toBeUndefined();
      });

      it('answers 404 for a delete of a missing id, changing nothing', async () => {
        const before = await env.knex('items').count({ n: '*' });
        expect(await api.del('/items/424242')).toMatchObject({ status: 404, body: { detail: 'Item not found' } });
        expect(await env.knex('items').count({ n: '*' })).toEqual(before);
      });

      it('serves hard delete at /db_delete/{id} only; /{id}/db is no route', async () => {
        const other = (await api.post('/items', { name: 'Shape' })).body.id;
        expect([404, 405]).toContain((await api.del(`/items/${other}/db`)).status);
        expect(await storedRow(env.knex, 'items', other)).toBeDefined();
      });

      it('has no db_delete route without a deleteSchema', async () => {
        const noHard = await env.serve(crudRouter(itemOptions(env.knex, { deleteSchema: undefined })));
        const other = (await api.post('/items', { name: 'Kept' })).body.id;
        expect([404, 405]).toContain((await noHard.del(`/items/db_delete/${other}`)).status);
        expect(await storedRow(env.knex, 'items', other)).toMatchObject({ is_deleted: false });
      });

      it('hard-deletes a row of a model without the flag column', async () => {
        const book = await books.post('/books', { title: 'Ephemeral' });
        expect(book).toMatchObject({ status: 201, body: null });
        const [{ id: bookId }] = await env.knex('books').where({ title: 'Ephemeral' });
        const res = await books.del(`/books/${bookId}`);
        expect(res.status).toBe(200);
        expect(res.body).toBeNull();
        expect(await storedRow(env.knex, 'books', bookId)).toBeUndefined();
        expect((await books.del(`/books/${bookId}`)).status).toBe(404);
      });
    });

    it('answers the writes as the wire-format table says, per configuration: a selectSchema or auto fields change the create answer only', async () => {
      const configs: [string, Api, (body: unknown) => void][] = [
        [
          'selectSchema',
          api,
          (body) => expect(Object.keys(body as object).sort()).toEqual([...ITEM_READ_FIELDS].sort()),
        ],
        ['none', plain, (body) => expect(body).toBeNull()],
        ['autoFields', auto, (body) => expect(body).toMatchObject({ category: 'server-set', is_deleted: false })],
      ];
      for (const [name, client, createAnswer] of configs) {
        const path = name === 'selectSchema' ? '/items' : `/${name === 'none' ? 'plain' : 'auto'}`;
        const created = await client.post(path, { name: `Wire ${name}` });
        expect(created.status, name).toBe(201);
        createAnswer(created.body);
        const [{ id }] = await env.knex('items').where({ name: `Wire ${name}` });
        expect(await client.patch(`${path}/${id}`, { price: 2 }), name).toMatchObject({ status: 200, body: null });
        expect(await client.del(`${path}/${id}`), name).toMatchObject({ status: 200, body: null });
        expect(await client.del(`${path}/db_delete/${id}`), name).toMatchObject({ status: 200, body: null });
      }
    });

    describe('restore: POST /{model}/{id}/restore', () => {
      it('brings a soft-deleted row back: 200 with the row, flag and deletion time cleared, readable again', async () => {
        const id = (await api.post('/items', { name: 'Back', price: 3 })).body.id;
        expect((await api.del(`/items/${id}`)).status).toBe(200);
        const res = await api.post(`/items/${id}/restore`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual([...ITEM_READ_FIELDS].sort());
        expect(res.body).toMatchObject({ id, name: 'Back', price: 3 });
        expect(await storedRow(env.knex, 'items', id)).toMatchObject({ is_deleted: false, deleted_at: null });
        expect(await api.get(`/items/${id}`)).toMatchObject({ status: 200, body: res.body });
      });

      it('answers 404 for a row that is not deleted, changing nothing', async () => {
        const id = (await api.post('/items', { name: 'Alive' })).body.id;
        expect(await api.post(`/items/${id}/restore`)).toMatchObject({
          status: 404,
          body: { detail: 'Item not found' },
        });
        expect(await storedRow(env.knex, 'items', id)).toMatchObject({ is_deleted: false, deleted_at: null });
      });

      it('answers 404 for a missing id, and for a second restore of the same row', async () => {
        expect(await api.post('/items/424242/restore')).toMatchObject({
          status: 404,
          body: { detail: 'Item not found' },
        });
        const id = (await api.post('/items', { name: 'Twice' })).body.id;
        await api.del(`/items/${id}`);
        expect((await api.post(`/items/${id}/restore`)).status).toBe(200);
        expect((await api.post(`/items/${id}/restore`)).status).toBe(404);
      });

      it('lets exactly one of two concurrent restores of a row succeed', async () => {
        const id = (await api.post('/items', { name: 'Raced' })).body.id;
        await api.del(`/items/${id}`);
        const answers = await Promise.all([api.post(`/items/${id}/restore`), api.post(`/items/${id}/restore`)]);
        expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
      });

      it('answers 422 for an id of the wrong type', async () => {
        expect((await api.post('/items/abc/restore')).status).toBe(422);
      });

      it('has no restore route on a model without the soft-delete flag', async () => {
        const [{ id: bookId }] = await env.knex('books').select('id').limit(1);
        expect([404, 405]).toContain((await books.post(`/books/${bookId}/restore`, {})).status);
        expect(
          crudRouter({
            session: env.knex,
            model: Book,
            path: '/books',
            createSchema: BookCreate,
            updateSchema: BookUpdate,
          }).routes.map((r) => r.path),
        ).not.toContain('/books/:id/restore');
      });
    });
  });
}
