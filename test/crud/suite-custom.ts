// Custom routes: PaginatedRequestQuery and CursorPaginatedRequestQuery as the
// dependencies of custom GET routes added with EndpointCreator.addCustomRoute, subclassed.
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { CursorPaginatedRequestQuery, EndpointCreator, PaginatedRequestQuery, type CrudRouter } from '@crudsmith/core';
import { itemOptions, type Answer, type Api, type CrudEnv } from './kit';

const ids = (res: Answer): number[] => res.body.data.map((row: { id: number }) => row.id);

/** A custom list query with class-validator-checked parameters of its own. */
class ItemSearch extends PaginatedRequestQuery {
  @IsOptional() @IsIn(['tools', 'garden', 'food']) category?: string;
  @IsOptional() @IsString() @MaxLength(5) q?: string;
}

/** A keyset query with a filter of its own. */
class KeysetByCategory extends CursorPaginatedRequestQuery {
  @IsOptional() @IsIn(['tools', 'garden', 'food']) category?: string;
}

export function describeCustomRoutes(env: CrudEnv): void {
  describe('query dependencies of custom GET routes', () => {
    let api: Api;
    let router: CrudRouter;

    beforeAll(async () => {
      await env.resetItems();
      const creator = new EndpointCreator(itemOptions(env.knex));
      creator.addRoutesToRouter();
      const repo = creator.ctx.repo;
      creator.addCustomRoute({
        method: 'GET',
        path: '/paged',
        handler: async (req) => {
          const query = await req.resolve(PaginatedRequestQuery.dependency());
          const page = await repo.getMulti(env.knex, { ...query.window(), ...query.sorting(), schemaToSelect: ['id'] });
          return { status: 200, json: { query: { ...query }, window: query.window(), ...page } };
        },
      });
      creator.addCustomRoute({
        method: 'GET',
        path: '/search',
        dependencies: [ItemSearch.dependency()],
        handler: async (req) => {
          const query = await req.resolve(ItemSearch.dependency());
          const filters = query.category ? { category: query.category } : {};
          const page = await repo.getMulti(env.knex, { ...query.window(), filters, schemaToSelect: ['id'] });
          return { status: 200, json: { isSearch: query instanceof ItemSearch, q: query.q ?? null, ...page } };
        },
      });
      creator.addCustomRoute({
        method: 'GET',
        path: '/keyset',
        handler: async (req) => {
          const query = await req.resolve(KeysetByCategory.dependency());
          const page = await repo.getMultiByCursor(env.knex, {
            cursor: query.cursor,
            limit: query.limit,
            sortColumn: query.sort_column,
            sortOrder: query.sort_order,
            filters: query.category ? { category: query.category } : {},
            schemaToSelect: ['id'],
          });
          return { status: 200, json: { limit: query.limit, sort: [query.sort_column, query.sort_order], ...page } };
        },
      });
      creator.addCustomRoute({
        method: 'GET',
        path: '/cursor-query',
        handler: async (req) => ({
          status: 200,
          json: { ...(await req.resolve(CursorPaginatedRequestQuery.dependency())) },
        }),
      });
      creator.addCustomRoute({
        method: 'GET',
        path: '/internal',
        includeInSchema: false,
        dependencies: [KeysetByCategory.dependency()],
        handler: async () => ({ status: 200, json: { internal: true } }),
      });
      router = creator.router;
      api = await env.serve(router);
    });

    it('publishes the parameters of the query classes a custom route depends on, their own fields included', () => {
      const search = router.routes.find((route) => route.path === '/items/search')!;
      const names = (search.doc?.parameters ?? []).map((p) => p.name);
      expect(names).toEqual(['offset', 'limit', 'page', 'itemsPerPage', 'items_per_page', 'sort', 'category', 'q']);
      expect(search.doc?.parameters?.find((p) => p.name === 'category')).toMatchObject({
        in: 'query',
        required: false,
        schema: { enum: ['tools', 'garden', 'food'] },
      });
      expect(search.doc?.parameters?.find((p) => p.name === 'q')).toMatchObject({ schema: { maxLength: 5 } });
      expect(KeysetByCategory.parameters().map((p) => p.name)).toEqual([
        'cursor',
        'limit',
        'sort_column',
        'sort_order',
        'category',
      ]);
      // A route whose query class is only resolved in its handler publishes nothing it cannot know.
      expect(router.routes.find((route) => route.path === '/items/paged')!.doc?.parameters).toBeUndefined();
    });

    it('serves a custom route left out of the OpenAPI document (includeInSchema: false)', async () => {
      const internal = router.routes.find((route) => route.path === '/items/internal')!;
      expect(internal.includeInSchema).toBe(false);
      expect(router.routes.filter((route) => route.includeInSchema === false).map((route) => route.path)).toEqual([
        '/items/internal',
      ]);
      expect((await api.get('/items/internal')).body).toEqual({ internal: true });
    });

    describe('PaginatedRequestQuery', () => {
      it('reads page and itemsPerPage (or items_per_page) into offset and limit', async () => {
        const res = await api.get('/items/paged?page=2&itemsPerPage=2');
        expect(res.status).toBe(200);
        expect(res.body.query).toEqual({ page: 2, items_per_page: 2 });
        expect(res.body.window).toEqual({ offset: 2, limit: 2 });
        expect(ids(res)).toEqual([3, 4]);
        expect((await api.get('/items/paged?page=1&items_per_page=3')).body.window).toEqual({ offset: 0, limit: 3 });
      });

      it('otherwise uses offset, limit and sort as given; every field is optional', async () => {
        const res = await api.get('/items/paged?offset=1&limit=2&sort=-price');
        expect(res.body.query).toEqual({ offset: 1, limit: 2, sort: '-price' });
        expect(ids(res)).toEqual([2, 1]);
        const bare = await api.get('/items/paged');
        expect(bare.body.query).toEqual({});
        expect(ids(bare)).toEqual([1, 2, 3, 4, 5, 6]);
      });

      it('answers 422 for values that are not valid integers or are out of range', async () => {
        for (const [query, key] of [
          ['page=0', 'page'],
          ['limit=abc', 'limit'],
          ['offset=-1', 'offset'],
          ['itemsPerPage=0', 'itemsPerPage'],
        ]) {
          const res = await api.get(`/items/paged?${query}`);
          expect(res.status, query).toBe(422);
          expect(res.body.detail[0].loc, query).toEqual(['query', key]);
        }
      });

      it('a subclass adds parameters checked by class-validator', async () => {
        const res = await api.get('/items/search?category=tools&q=ham&page=1&itemsPerPage=5');
        expect(res.body).toMatchObject({ isSearch: true, q: 'ham', total_count: 2 });
        expect(ids(res)).toEqual([1, 2]);
        const wrong = await api.get('/items/search?category=toys');
        expect(wrong.status).toBe(422);
        expect(wrong.body.detail).toEqual([{ loc: ['query', 'category'], msg: expect.any(String), type: 'isIn' }]);
        const long = await api.get('/items/search?q=toolong');
        expect(long.status).toBe(422);
        expect(long.body.detail[0].loc).toEqual(['query', 'q']);
        expect((await api.get('/items/search?page=0')).status).toBe(422);
      });

      it('gives one dependency per class, so a route resolves it once', () => {
        expect(ItemSearch.dependency()).toBe(ItemSearch.dependency());
        expect(ItemSearch.dependency()).not.toBe(PaginatedRequestQuery.dependency());
      });
    });

    describe('CursorPaginatedRequestQuery', () => {
      it('defaults to limit 100, sort_column id, sort_order asc', async () => {
        const res = await api.get('/items/keyset');
        expect(res.body).toMatchObject({ limit: 100, sort: ['id', 'asc'], next_cursor: null });
        expect(ids(res)).toEqual([1, 2, 3, 4, 5, 6]);
        expect((await api.get('/items/cursor-query')).body).toEqual({
          limit: 100,
          sort_column: 'id',
          sort_order: 'asc',
        });
        expect((await api.get('/items/cursor-query?cursor=abc&limit=5&sort_order=desc&other=1')).body).toEqual({
          cursor: 'abc',
          limit: 5,
          sort_column: 'id',
          sort_order: 'desc',
        });
      });

      it('walks pages with cursor, in the sort asked', async () => {
        const first = await api.get('/items/keyset?limit=4&sort_column=price&sort_order=desc');
        expect(ids(first)).toEqual([6, 2, 1, 3]);
        const next = await api.get(
          `/items/keyset?limit=4&sort_column=price&sort_order=desc&cursor=${encodeURIComponent(first.body.next_cursor)}`,
        );
        expect(ids(next)).toEqual([4, 5]);
        expect(next.body.next_cursor).toBeNull();
      });

      it('answers 422 for limit outside 1..1000 or a sort_order other than asc and desc', async () => {
        for (const query of ['limit=0', 'limit=1001', 'limit=x', 'sort_order=up', 'category=toys']) {
          expect((await api.get(`/items/keyset?${query}`)).status, query).toBe(422);
        }
        expect((await api.get('/items/keyset?limit=1000')).status).toBe(200);
      });

      it('a subclass adds its own parameters', async () => {
        const res = await api.get('/items/keyset?category=food&limit=1');
        expect(ids(res)).toEqual([4]);
        expect(
          ids(await api.get(`/items/keyset?category=food&limit=1&cursor=${encodeURIComponent(res.body.next_cursor)}`)),
        ).toEqual([5]);
      });
    });

    it('leaves the generated routes beside the custom ones', async () => {
      expect((await api.get('/items/1')).body).toMatchObject({ id: 1, name: 'Alpha' });
      expect((await api.get('/items?limit=1')).body.total_count).toBe(6);
    });
  });
}
