// Conditional requests: the entity tags of the read answers and If-None-Match.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter } from '@crudsmith/core';
import { itemOptions, type Api, type CrudEnv } from './kit';

export function describeConditional(env: CrudEnv): void {
  describe('conditional reads: ETag and If-None-Match', () => {
    let api: Api;
    let hidden: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex)));
      // An answer without the update time: its tag is a hash of the answer.
      hidden = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/hidden', selectSchema: ['id', 'name', 'description', 'price'] })),
      );
    });

    it('answers read one with a strong ETag that a matching If-None-Match turns into a 304 without a body', async () => {
      const first = await api.get('/items/1');
      const tag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(tag).toMatch(/^"[^"]+"$/);
      const again = await api.get('/items/1', { 'if-none-match': tag! });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect((await api.get('/items/1', { 'if-none-match': `"other", W/${tag}` })).status).toBe(304);
      expect((await api.get('/items/1', { 'if-none-match': '*' })).status).toBe(304);
    });

    it('answers 200 with the row when If-None-Match names another tag', async () => {
      const res = await api.get('/items/1', { 'if-none-match': '"stale"' });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(1);
    });

    it('gives a row a new tag once it is updated, and different rows different tags', async () => {
      const before = (await api.get('/items/2')).headers.get('etag');
      expect((await api.get('/items/3')).headers.get('etag')).not.toBe(before);
      expect((await api.patch('/items/2', { price: 99.5 })).status).toBe(200);
      const after = await api.get('/items/2', { 'if-none-match': before! });
      expect(after.status).toBe(200);
      expect(after.body.price).toBe(99.5);
      expect(after.headers.get('etag')).not.toBe(before);
    });

    it('tags an answer that shows no update time by its content', async () => {
      const first = await hidden.get('/hidden/4');
      const tag = first.headers.get('etag');
      expect(tag).toMatch(/^"[^"]+"$/);
      expect((await hidden.get('/hidden/4', { 'if-none-match': tag! })).status).toBe(304);
      await env.knex('items').where({ id: 4 }).update({ description: 'changed behind the API' });
      expect((await hidden.get('/hidden/4', { 'if-none-match': tag! })).status).toBe(200);
    });

    it('answers a list with a weak ETag of its body, 304 while the body is unchanged', async () => {
      for (const query of ['', '?page=1&itemsPerPage=2', '?cursor=&limit=2']) {
        const first = await api.get(`/items${query}`);
        const tag = first.headers.get('etag');
        expect(tag).toMatch(/^W\/"[^"]+"$/);
        const again = await api.get(`/items${query}`, { 'if-none-match': tag! });
        expect(again.status).toBe(304);
        expect(again.body).toBe('');
      }
      const tag = (await api.get('/items')).headers.get('etag')!;
      await api.patch('/items/5', { price: 1.25 });
      expect((await api.get('/items', { 'if-none-match': tag })).status).toBe(200);
    });

    it('publishes the ETag header and the 304 in the OpenAPI description of both reads', () => {
      const routes = crudRouter(itemOptions(env.knex)).routes;
      for (const operation of ['items_read', 'items_read_multi']) {
        const doc = routes.find((route) => route.operation === operation)!.doc!;
        expect(doc.responses!['200'].headers).toHaveProperty('ETag');
        expect(doc.responses!['304'].headers).toHaveProperty('ETag');
        expect(doc.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }));
      }
    });
  });

  describe('conditional writes: If-Match', () => {
    let api: Api;
    let strict: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex, { path: '/guarded' })));
      strict = await env.serve(crudRouter(itemOptions(env.knex, { path: '/strict', requireIfMatch: true })));
    });

    const tagOf = async (path: string) => (await api.get(path)).headers.get('etag')!;

    it('updates with the current tag, and answers 412 and changes nothing with a stale one', async () => {
      const stale = await tagOf('/guarded/1');
      expect((await api.patch('/guarded/1', { price: 10.5 }, { 'if-match': stale })).status).toBe(200);
      const again = await api.patch('/guarded/1', { price: 20.5 }, { 'if-match': stale });
      expect(again.status).toBe(412);
      expect(typeof again.body.detail).toBe('string');
      expect((await api.get('/guarded/1')).body.price).toBe(10.5);
      expect((await api.patch('/guarded/1', { price: 30.5 }, { 'if-match': await tagOf('/guarded/1') })).status).toBe(
        200,
      );
    });

    it('lets exactly one of two concurrent updates holding one tag win; the other is a 412', async () => {
      const tag = await tagOf('/guarded/2');
      const answers = await Promise.all([
        api.patch('/guarded/2', { price: 1.5 }, { 'if-match': tag }),
        api.patch('/guarded/2', { price: 2.5 }, { 'if-match': tag }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = answers.findIndex((answer) => answer.status === 200);
      expect((await api.get('/guarded/2')).body.price).toBe(winner === 0 ? 1.5 : 2.5);
    });

    it('answers 412 for a tag of another row, and 404 for a row that is not there', async () => {
      const other = await tagOf('/guarded/3');
      expect((await api.patch('/guarded/4', { price: 3 }, { 'if-match': other })).status).toBe(412);
      expect((await api.patch('/guarded/999', { price: 3 }, { 'if-match': other })).status).toBe(404);
      expect((await api.patch('/guarded/4', { price: 3 }, { 'if-match': '*' })).status).toBe(200);
    });

    it('guards soft delete, restore and db_delete alike', async () => {
      const tag = await tagOf('/guarded/5');
      await api.patch('/guarded/5', { price: 4.5 });
      expect((await api.del('/guarded/5', { 'if-match': tag })).status).toBe(412);
      expect((await api.get('/guarded/5')).status).toBe(200);
      const fresh = await tagOf('/guarded/5');
      expect((await api.del('/guarded/5', { 'if-match': fresh })).status).toBe(200);
      expect((await api.post('/guarded/5/restore', undefined, { 'if-match': tag })).status).toBe(412);
      expect((await api.post('/guarded/5/restore', undefined, { 'if-match': fresh })).status).toBe(200);
      expect((await api.del('/guarded/db_delete/5', { 'if-match': tag })).status).toBe(412);
      expect(await env.knex('items').where({ id: 5 }).first()).toBeDefined();
      expect((await api.del('/guarded/db_delete/5', { 'if-match': fresh })).status).toBe(200);
      expect(await env.knex('items').where({ id: 5 }).first()).toBeUndefined();
    });

    it('answers 428 without If-Match when the router requires it, and writes with it', async () => {
      const res = await strict.patch('/strict/6', { price: 5 });
      expect(res.status).toBe(428);
      expect((await strict.del('/strict/6')).status).toBe(428);
      expect((await strict.del('/strict/db_delete/6')).status).toBe(428);
      const tag = (await strict.get('/strict/6')).headers.get('etag')!;
      expect((await strict.patch('/strict/6', { price: 5 }, { 'if-match': tag })).status).toBe(200);
    });

    it('publishes If-Match, the 412 and (when required) the 428 in the OpenAPI description of the writes', () => {
      for (const requireIfMatch of [false, true]) {
        const routes = crudRouter(itemOptions(env.knex, { requireIfMatch })).routes;
        for (const operation of ['items_update', 'items_delete', 'items_db_delete', 'items_restore']) {
          const doc = routes.find((route) => route.operation === operation)!.doc!;
          expect(doc.parameters).toContainEqual(
            expect.objectContaining({ name: 'If-Match', in: 'header', required: requireIfMatch }),
          );
          expect(Object.keys(doc.responses!)).toContain('412');
          expect(Object.keys(doc.responses!).includes('428')).toBe(requireIfMatch);
        }
      }
    });
  });
}
