// Configuration parameters (the crud_router / EndpointCreator options) and server-side
// field injection, each parameter seen through HTTP.
import type { Knex } from 'knex';
import { Model } from 'objection';
import { IsString } from 'class-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CreateConfig,
  CrudRepository,
  crudRouter,
  EndpointCreator,
  type CrudOptions,
  type Dependency,
} from '@crudsmith/core';
import { Item } from '../fixtures/models';
import { itemOptions, storedRow, type Answer, type CrudEnv } from './kit';

/** An item body whose category the schema requires, though the server fills it. */
class ItemWithRequiredCategory {
  @IsString() name!: string;
  @IsString() category!: string;
}

/** A create body of no field: the server fills every column. */
class NoFields {}

const gone = (res: Answer) => expect([404, 405]).toContain(res.status);

/** An item-like model whose soft-delete and update-timestamp columns have other names. */
class Gadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: ['string', 'null'] },
      removed: { type: 'boolean' },
      removed_at: { type: ['string', 'null'], format: 'date-time' },
      changed_at: { type: ['string', 'null'], format: 'date-time' },
    },
  };
}

async function createGadgets(knex: Knex): Promise<void> {
  await knex.schema.createTable('gadgets', (t) => {
    t.increments('id');
    t.string('name').nullable();
    t.boolean('removed').notNullable().defaultTo(false);
    t.datetime('removed_at', { precision: 3 }).nullable();
    t.datetime('changed_at', { precision: 3 }).nullable();
  });
}

export function describeConfig(env: CrudEnv): void {
  describe('configuration parameters', () => {
    beforeAll(async () => {
      await env.resetItems();
      await createGadgets(env.knex);
    });

    it('endpointNames: add, fetch, modify, remove, list give /add, /fetch/{id}, /modify/{id}, /remove/{id}, /list', async () => {
      const api = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            endpointNames: { create: 'add', read: 'fetch', update: 'modify', delete: 'remove', read_multi: 'list' },
          }),
        ),
      );
      const created = await api.post('/items/add', { name: 'Named' });
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect(await api.get(`/items/fetch/${id}`)).toMatchObject({ status: 200, body: { name: 'Named' } });
      expect((await api.get('/items/list?name=Named')).status).toBe(200);
      expect((await api.get('/items/list')).body.total_count).toBe(7);
      expect(await api.patch(`/items/modify/${id}`, { price: 2 })).toMatchObject({ status: 200, body: null });
      expect(await api.del(`/items/remove/${id}`)).toMatchObject({ status: 200, body: null });
      expect(await api.del(`/items/db_delete/${id}`)).toMatchObject({ status: 200, body: null });
      gone(await api.get('/items/1'));
      gone(await api.get('/items'));
      gone(await api.post('/items', { name: 'x' }));
    });

    it('endpointNames: only the names given change; readPaginated is accepted as read-many', async () => {
      const api = await env.serve(
        crudRouter(itemOptions(env.knex, { endpointNames: { read: 'one', readPaginated: 'page' } })),
      );
      expect((await api.get('/items/one/1')).status).toBe(200);
      expect(await api.get('/items/page?page=1&itemsPerPage=2')).toMatchObject({
        status: 200,
        body: { page: 1, items_per_page: 2, has_more: true },
      });
      expect((await api.patch('/items/1', {})).status).toBe(200);
      const spec = await env.serve(
        crudRouter(itemOptions(env.knex, { endpointNames: { read_paginated: 'all', db_delete: 'purge' } })),
      );
      expect((await spec.get('/items/all')).status).toBe(200);
      gone(await spec.del('/items/db_delete/424242'));
      expect((await spec.del('/items/purge/424242')).status).toBe(404);
    });

    it('includedMethods keeps only the listed operations (camelCase or snake_case spelling)', async () => {
      const api = await env.serve(crudRouter(itemOptions(env.knex, { includedMethods: ['read', 'read_multi'] })));
      expect((await api.get('/items/1')).status).toBe(200);
      expect((await api.get('/items')).status).toBe(200);
      gone(await api.post('/items', { name: 'No' }));
      gone(await api.patch('/items/1', { price: 1 }));
      gone(await api.del('/items/1'));
      gone(await api.del('/items/db_delete/1'));
    });

    it('deletedMethods drops the listed operations, keeping the rest', async () => {
      const api = await env.serve(
        crudRouter(itemOptions(env.knex, { deletedMethods: ['delete', 'dbDelete', 'create'] })),
      );
      expect((await api.get('/items/1')).status).toBe(200);
      expect((await api.patch('/items/1', { price: 10 })).status).toBe(200);
      gone(await api.post('/items', { name: 'No' }));
      gone(await api.del('/items/1'));
      gone(await api.del('/items/db_delete/1'));
      expect(await storedRow(env.knex, 'items', 1)).toMatchObject({ is_deleted: false });
    });

    it('restore is generated for a soft-delete model and dropped like any operation (deletedMethods, includedMethods)', async () => {
      const id = (
        await (
          await env.serve(crudRouter(itemOptions(env.knex, { path: '/restorable' })))
        ).post('/restorable', { name: 'R' })
      ).body.id;
      await env.knex('items').where({ id }).update({ is_deleted: true });
      const without = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/norestore', deletedMethods: ['restore'] })),
      );
      expect([404, 405]).toContain((await without.post(`/norestore/${id}/restore`, {})).status);
      const only = await env.serve(crudRouter(itemOptions(env.knex, { path: '/onlyread', includedMethods: ['read'] })));
      expect([404, 405]).toContain((await only.post(`/onlyread/${id}/restore`, {})).status);
      expect(await storedRow(env.knex, 'items', id)).toMatchObject({ is_deleted: true });
      const renamed = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/renamed', endpointNames: { restore: 'undelete' } })),
      );
      expect((await renamed.post(`/renamed/${id}/undelete`)).status).toBe(200);
      expect(await storedRow(env.knex, 'items', id)).toMatchObject({ is_deleted: false });
    });

    it("path sets the mount path (slashes trimmed); tags reach every route's documentation", async () => {
      const router = crudRouter(itemOptions(env.knex, { path: 'goods/', tags: ['Goods'] }));
      expect(router.path).toBe('/goods');
      expect(router.routes.every((route) => route.doc?.tags?.join() === 'Goods')).toBe(true);
      const api = await env.serve(router);
      expect((await api.get('/goods/1')).body).toMatchObject({ id: 1, name: 'Alpha' });
      gone(await api.get('/items/1'));
    });

    it('session: a provider is called once per request for its knex instance', async () => {
      let calls = 0;
      const session: Dependency<Knex> = () => {
        calls++;
        return env.knex;
      };
      const api = await env.serve(crudRouter(itemOptions(env.knex, { session })));
      const before = calls;
      expect((await api.get('/items/1')).status).toBe(200);
      expect((await api.get('/items?limit=2')).status).toBe(200);
      const id = (await api.post('/items', { name: 'Session' })).body.id;
      expect((await api.del(`/items/${id}`)).status).toBe(200);
      expect(calls - before).toBe(4);
    });

    it('crud: the endpoints use the data-access instance given', async () => {
      const seen: string[] = [];
      class Recording extends CrudRepository<typeof Item> {
        override async getMulti(...args: Parameters<CrudRepository['getMulti']>) {
          seen.push('getMulti');
          return super.getMulti(...args);
        }
      }
      const api = await env.serve(crudRouter(itemOptions(env.knex, { crud: new Recording(Item) })));
      expect((await api.get('/items?limit=1')).body.total_count).toBeGreaterThan(0);
      expect(seen).toEqual(['getMulti']);
    });

    it('selectSchema: reads answer exactly its fields; without it, every column', async () => {
      const select = await env.serve(crudRouter(itemOptions(env.knex, { selectSchema: ['id', 'name'] })));
      expect((await select.get('/items/1')).body).toEqual({ id: 1, name: 'Alpha' });
      expect((await select.get('/items?limit=1')).body.data).toEqual([{ id: 1, name: 'Alpha' }]);
      const all = await env.serve(crudRouter(itemOptions(env.knex, { selectSchema: undefined })));
      expect(Object.keys((await all.get('/items/1')).body).sort()).toEqual(
        Object.keys(Item.jsonSchema.properties).sort(),
      );
    });

    it('isDeletedColumn, deletedAtColumn, updatedAtColumn: custom column names', async () => {
      const options: CrudOptions = {
        session: env.knex,
        model: Gadget,
        path: '/gadgets',
        createSchema: ['name'],
        updateSchema: ['name'],
        deleteSchema: [],
        isDeletedColumn: 'removed',
        deletedAtColumn: 'removed_at',
        updatedAtColumn: 'changed_at',
      };
      const api = await env.serve(crudRouter(options));
      expect((await api.post('/gadgets', { name: 'Widget' })).status).toBe(201);
      const [{ id }] = await env.knex('gadgets').where({ name: 'Widget' });
      expect((await api.patch(`/gadgets/${id}`, { name: 'Widget 2' })).status).toBe(200);
      expect((await api.get(`/gadgets/${id}`)).body.changed_at).toMatch(/Z$/);
      expect((await api.del(`/gadgets/${id}`)).status).toBe(200);
      const row = await env.knex('gadgets').where({ id }).first();
      expect(Boolean(Number(row.removed))).toBe(true);
      expect(row.removed_at).not.toBeNull();
      expect((await api.get(`/gadgets/${id}`)).status).toBe(404);
      expect((await api.get('/gadgets')).body.total_count).toBe(0);
      expect((await api.del(`/gadgets/db_delete/${id}`)).status).toBe(200);
      expect(await env.knex('gadgets').where({ id })).toEqual([]);
    });

    describe('createConfig, updateConfig, deleteConfig (server-side field injection)', () => {
      it('auto fields are written from dependencies, and the client may not send them', async () => {
        const api = await env.serve(
          crudRouter(
            itemOptions(env.knex, {
              path: '/injected',
              createConfig: new CreateConfig({ autoFields: { category: (req) => `org-${req.headers['x-org']}` } }),
              updateConfig: { autoFields: { description: async () => 'edited by server' } },
              deleteConfig: { autoFields: { description: () => 'deleted by server' } },
            }),
          ),
        );
        const created = await api.post('/injected', { name: 'Injected' }, { 'x-org': '7' });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ name: 'Injected', category: 'org-7' });
        const id = created.body.id;
        expect(await api.patch(`/injected/${id}`, { price: 3 })).toMatchObject({ status: 200, body: null });
        expect(await storedRow(env.knex, 'items', id)).toMatchObject({
          description: 'edited by server',
          category: 'org-7',
        });
        const forged = await api.patch(`/injected/${id}`, { description: 'mine' });
        expect(forged.status).toBe(422);
        expect(forged.body.detail[0].loc).toEqual(['body', 'description']);
        expect((await api.del(`/injected/${id}`)).status).toBe(200);
        expect(await storedRow(env.knex, 'items', id)).toMatchObject({
          description: 'deleted by server',
          is_deleted: true,
        });
      });

      it('a body naming an auto field the request schema does not declare is one 422 entry, at that field', async () => {
        const api = await env.serve(
          crudRouter(
            itemOptions(env.knex, { path: '/stamped', createConfig: { autoFields: { updated_at: () => new Date() } } }),
          ),
        );
        const res = await api.post('/stamped', { name: 'Stamped', updated_at: '2024-01-01T00:00:00Z' });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([
          { loc: ['body', 'updated_at'], msg: "Field 'updated_at' is set by the server", type: 'extra_forbidden' },
        ]);
      });

      it('excludeFromSchema hides a field from the published request schema and refuses it in bodies', async () => {
        const router = crudRouter(
          itemOptions(env.knex, { path: '/hidden', createConfig: { excludeFromSchema: ['description'] } }),
        );
        const create = router.routes.find((route) => route.method === 'POST')!;
        expect(Object.keys(create.doc?.requestBody?.properties ?? {})).not.toContain('description');
        expect(Object.keys(create.doc?.requestBody?.properties ?? {})).toContain('name');
        const api = await env.serve(router);
        const res = await api.post('/hidden', { name: 'Hidden', description: 'nope' });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'description'] })]);
        expect((await api.post('/hidden', { name: 'Hidden' })).status).toBe(201);
      });
    });

    describe('server-filled fields and the create schema', () => {
      it('an auto field the create schema requires, excluded from the schema, is not required of the client', async () => {
        const api = await env.serve(
          crudRouter(
            itemOptions(env.knex, {
              path: '/required-auto',
              createSchema: ItemWithRequiredCategory,
              createConfig: { autoFields: { category: () => 'filled' }, excludeFromSchema: ['category'] },
            }),
          ),
        );
        const created = await api.post('/required-auto', { name: 'Auto required' });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toMatchObject({ name: 'Auto required', category: 'filled' });
        const sent = await api.post('/required-auto', { name: 'Sent anyway', category: 'mine' });
        expect(sent.status).toBe(422);
        expect(sent.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'category'] })]);
        const wrong = await api.post('/required-auto', { name: 42 });
        expect(wrong.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'] })]);
      });

      it('a create schema with no decorated field accepts {} and refuses any key', async () => {
        let n = 0;
        const api = await env.serve(
          crudRouter(
            itemOptions(env.knex, {
              path: '/fieldless',
              createSchema: NoFields,
              createConfig: { autoFields: { name: () => `server-made ${++n}` } },
            }),
          ),
        );
        const created = await api.post('/fieldless', {});
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body.name).toBe('server-made 1');
        const extra = await api.post('/fieldless', { price: 1 });
        expect(extra.status).toBe(422);
        expect(extra.body.detail).toEqual([
          expect.objectContaining({ loc: ['body', 'price'], type: 'extra_forbidden' }),
        ]);
      });

      it('a deleteConfig auto field for the deletion time is the time written', async () => {
        const api = await env.serve(
          crudRouter(
            itemOptions(env.knex, {
              path: '/dated-delete',
              deleteConfig: { autoFields: { deleted_at: () => '2020-01-02T03:04:05.000Z' } },
            }),
          ),
        );
        const { id } = (await api.post('/dated-delete', { name: 'Dated delete' })).body;
        expect((await api.del(`/dated-delete/${id}`)).status).toBe(200);
        const stored = await new CrudRepository(Item).get(env.knex, { id }, { includeDeleted: true });
        expect(stored).toMatchObject({ is_deleted: true, deleted_at: new Date('2020-01-02T03:04:05.000Z') });
      });
    });

    it('endpointCreator: a subclass builds the routes, with addRoutesToRouter overridden and a custom route', async () => {
      class CountingCreator extends EndpointCreator {
        override addRoutesToRouter(): void {
          super.addRoutesToRouter();
          this.addCustomRoute({
            method: 'GET',
            path: '/count',
            handler: async () => ({ status: 200, json: { count: await this.ctx.repo.count(env.knex) } }),
          });
        }
      }
      const api = await env.serve(crudRouter(itemOptions(env.knex, { endpointCreator: CountingCreator })));
      const count = await api.get('/items/count');
      expect(count.status).toBe(200);
      expect(count.body.count).toBe((await api.get('/items')).body.total_count);
      expect((await api.get('/items/1')).status).toBe(200);
    });
  });
}
