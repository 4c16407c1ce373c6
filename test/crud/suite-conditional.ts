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
      hidden = await env.serve(crudRouter(itemOptions(env.knex, { path: '/hidden', selectSchema: undefined })));
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
}
