// Filters over HTTP: operators, coercion, undeclared and refused keys, and the integer
// and list limits.
import { Model } from 'objection';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createRegistry,
  crud,
  CrudRepository,
  crudRouter,
  filter,
  FilterConfig,
  type CustomFilter,
  type Dependency,
} from '@crudsmith/core';
import { Book, Item } from '../fixtures/models';
import { itemOptions, type Answer, type Api, type CrudEnv } from './kit';
import { ItemCreate, ItemRead, ItemUpdate } from './schemas';

const ids = (res: Answer): number[] => res.body.data.map((row: { id: number }) => row.id);

const cheaperThan: CustomFilter = (column) => (qb, value) => {
  qb.where(column, '<', Number(value));
};

const ITEM_FILTERS = new FilterConfig({
  id: null,
  id__in: null,
  id__not_in: null,
  name: null,
  name__ilike: null,
  name__startswith: null,
  name__contains: null,
  category: null,
  category__ne: null,
  category__is: null,
  category__is_not: null,
  price__gt: null,
  price__gte: null,
  price__lt: null,
  price__lte: null,
  price__between: null,
  last_sold__lt: null,
  last_sold__gte: null,
});

/** A table whose column names contain `__`: `size__cm` has a filter, `size__mm` none. */
class Gauge extends Model {
  static override tableName = 'gauges';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      size: { type: 'string' },
      size__cm: { type: 'integer' },
      size__mm: { type: 'integer' },
    },
  };
}

/** Every operator on every filtered column, as the example application declares them. */
class EveryOperatorItem extends Item {}
for (const column of ['id', 'name', 'price', 'last_sold', 'is_deleted'])
  filter(EveryOperatorItem, column, { operators: 'all' });
crud(EveryOperatorItem, {
  path: '/every',
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  selectSchema: ItemRead,
  includedMethods: ['readMulti'],
});

export function describeFilters(env: CrudEnv): void {
  describe('filters', () => {
    let api: Api;
    let books: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex, { filterConfig: ITEM_FILTERS })));
      books = await env.serve(
        crudRouter({
          session: env.knex,
          model: Book,
          path: '/books',
          includedMethods: ['readMulti'],
          filterConfig: { 'author.name': null, 'reviews.stars__gte': null, 'tags.label__in': null },
        }),
      );
    });

    it('filters by the query: name=x, price__gte=10, id__in=1,2,3, price__between=10,20', async () => {
      expect(ids(await api.get('/items?name=Alpha'))).toEqual([1]);
      expect(ids(await api.get('/items?price__gte=10'))).toEqual([1, 2, 6]);
      expect(ids(await api.get('/items?id__in=1,2,3'))).toEqual([1, 2, 3]);
      expect(ids(await api.get('/items?price__between=10,30'))).toEqual([1, 2]);
      expect(ids(await api.get('/items?price__between=5,20'))).toEqual([1, 3]);
      expect((await api.get('/items?price__gte=10')).body.total_count).toBe(3);
    });

    it('takes list values as a comma list or a repeated key', async () => {
      expect(ids(await api.get('/items?id__in=1&id__in=3'))).toEqual([1, 3]);
      expect(ids(await api.get('/items?id__in=1,2&id__in=5'))).toEqual([1, 2, 5]);
      expect(ids(await api.get('/items?id__not_in=1,2,3,4,5'))).toEqual([6]);
    });

    it.each([
      ['category__ne=tools', [3, 4, 5]],
      ['category__is=null', [6]],
      ['category__is_not=null', [1, 2, 3, 4, 5]],
      ['name__ilike=%25ALPHA%25', [1]],
      ['name__startswith=delta_', [5]],
      ['name__contains=psi', [6]],
      ['price__gt=25.5', [6]],
      ['price__lt=5', [4]],
      ['price__lte=5.25', [3, 4]],
      ['last_sold__lt=2024-02-01T00:00:00Z', [1, 6]],
      ['last_sold__gte=2024-02-15', [3, 4]],
      ['name=Alpha&category=tools', [1]],
    ])('applies %s', async (query, expected) => {
      expect(ids(await api.get(`/items?${query}`))).toEqual(expected);
    });

    it('filters on a related column with a dotted key, never repeating parents', async () => {
      const ann = await books.get('/books?author.name=Ann');
      expect(ann.body.data.map((b: { title: string }) => b.title)).toEqual(['A1', 'A2', 'A3']);
      expect(ann.body.total_count).toBe(3);
      expect(ids(await books.get('/books?author.name=Cy'))).toEqual([]);
      // Book 1 has reviews of 5, 3 and 4 stars: it appears once.
      expect(ids(await books.get('/books?reviews.stars__gte=4'))).toEqual([1, 4]);
      expect(ids(await books.get('/books?tags.label__in=fiction,poetry'))).toEqual([1, 2, 4]);
      const bad = await books.get('/books?reviews.stars__gte=many');
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'reviews.stars__gte']);
    });

    it('ignores query keys that name no declared filter, so an app can add its own parameters', async () => {
      const res = await api.get('/items?description=nothing&description__ilike=x&foo=bar&foo__gt=1&_or=x&__gt=1');
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(6);
      const books2 = await books.get('/books?title=A1&tags=x&reviews__gt=1');
      expect(books2.body.total_count).toBe(5);
    });

    it('an explicit __eq filters like the bare key', async () => {
      expect(ids(await api.get('/items?name__eq=Alpha'))).toEqual([1]);
      expect(ids(await api.get('/items?id__eq=3'))).toEqual([3]);
      expect(ids(await api.get('/items?category__eq=food&name=delta_x'))).toEqual([5]);
      expect((await api.get('/items?name__eq=Nobody')).body.total_count).toBe(0);
      expect(ids(await books.get('/books?author.name__eq=Bob'))).toEqual([4]);
      const bad = await api.get('/items?id__eq=abc');
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'id__eq']);
      // Both spellings at once are one filter given twice, as a repeated key is.
      const twice = await api.get('/items?name=Alpha&name__eq=beta');
      expect(twice.status).toBe(422);
      expect(twice.body.detail[0].loc).toEqual(['query', 'name__eq']);
    });

    it('an explicit __eq replaces a default, as the bare key does', async () => {
      const garden = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/garden-eq', filterConfig: { category: 'garden' } })),
      );
      expect(ids(await garden.get('/garden-eq?category__eq=food'))).toEqual([4, 5]);
      const spelled = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/spelled', filterConfig: { category__eq: 'garden' } })),
      );
      expect(ids(await spelled.get('/spelled'))).toEqual([3]);
      expect(ids(await spelled.get('/spelled?category=food'))).toEqual([4, 5]);
    });

    it('an operator not allowed for a declared filter is 400 naming the key and the allowed operators', async () => {
      const cases: [Api, string, string, string][] = [
        [api, 'category__gt=a', 'category__gt', 'eq, ne, is, is_not'],
        [api, 'name__bogus=x', 'name__bogus', 'eq, ilike, startswith, contains'],
        [api, 'price__ne=10', 'price__ne', 'gt, gte, lt, lte, between'],
        [api, 'last_sold__eq=2024-01-10', 'last_sold__eq', 'lt, gte'],
        [api, 'price=10', 'price', 'gt, gte, lt, lte, between'],
        [api, 'id__=1', 'id__', 'eq, in, not_in'],
        [books, 'author.name__ilike=a%25', 'author.name__ilike', 'eq'],
        [books, 'reviews.stars__lt=3', 'reviews.stars__lt', 'gte'],
        [books, 'tags.label=fiction', 'tags.label', 'in'],
      ];
      for (const [client, query, key, allowed] of cases) {
        const res = await client.get(`/${client === api ? 'items' : 'books'}?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.detail, query).toContain(`'${key}'`);
        expect(res.body.detail, query).toContain(allowed);
      }
      expect((await api.get('/items?category__gt=a')).body).toEqual({
        detail: "Filter operator 'gt' is not allowed in 'category__gt': 'category' allows eq, ne, is, is_not",
      });
      expect(env.logged).toEqual([]);
    });

    it("operators 'all' gives text operators to text columns only", async () => {
      const every = await env.serve(...createRegistry([EveryOperatorItem]).compile({ session: env.knex }));
      expect(ids(await every.get('/every?name__contains=lph'))).toEqual([1]);
      expect(ids(await every.get('/every?name__ilike=%25A&price__gte=5'))).toEqual([1, 2, 3]);
      expect(ids(await every.get('/every?last_sold__gte=2024-02-15&is_deleted__is=false'))).toEqual([3, 4]);
      for (const query of ['price__like=1%25', 'id__startswith=1', 'last_sold__contains=2024', 'is_deleted__ilike=t']) {
        const res = await every.get(`/every?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.detail, query).toMatch(/allows eq, ne, gt, gte, lt, lte, is, is_not, between, in, not_in$/);
      }
      expect(env.logged).toEqual([]);
    });

    describe('column names that contain __', () => {
      let gauges: Api;

      beforeAll(async () => {
        await env.knex.schema.createTable('gauges', (t) => {
          t.increments('id');
          t.string('size');
          t.integer('size__cm');
          t.integer('size__mm');
        });
        await env.knex('gauges').insert([
          { size: 'S', size__cm: 5, size__mm: 50 },
          { size: 'M', size__cm: 10, size__mm: 100 },
          { size: 'L', size__cm: 20, size__mm: 200 },
        ]);
        gauges = await env.serve(
          crudRouter({
            session: env.knex,
            model: Gauge,
            path: '/gauges',
            includedMethods: ['readMulti'],
            filterConfig: { size: null, size__in: null, size__cm__gte: null },
          }),
        );
      });

      it('split at the last __ only before an operator, as before', async () => {
        expect(ids(await gauges.get('/gauges?size__cm__gte=10'))).toEqual([2, 3]);
        expect(ids(await gauges.get('/gauges?size__in=S,L'))).toEqual([1, 3]);
        // size__mm is a column without a filter, not 'size' with an operator 'mm'.
        expect((await gauges.get('/gauges?size__mm=50')).body.total_count).toBe(3);
        expect((await gauges.get('/gauges?size__mm__gte=50')).body.total_count).toBe(3);
      });

      it('refuse an operator a declared column does not allow, whichever column it is', async () => {
        for (const [query, detail] of [
          ['size__cm__lt=10', "Filter operator 'lt' is not allowed in 'size__cm__lt': 'size__cm' allows gte"],
          ['size__cm=10', "Filter operator 'eq' is not allowed in 'size__cm': 'size__cm' allows gte"],
          ['size__bogus=1', "Filter operator 'bogus' is not allowed in 'size__bogus': 'size' allows eq, in"],
          ['size__gt=M', "Filter operator 'gt' is not allowed in 'size__gt': 'size' allows eq, in"],
        ]) {
          expect(await gauges.get(`/gauges?${query}`), query).toMatchObject({ status: 400, body: { detail } });
        }
      });
    });

    it('answers 422, never 500, for a value that cannot be coerced to the column type', async () => {
      const cases = [
        'id=1e3',
        'id=1.5',
        'id=abc',
        'price__gte=abc',
        'price__gte=1%2C5',
        'id__in=1,x',
        'last_sold__lt=yesterday',
        'category__is=maybe',
      ];
      for (const query of cases) {
        const res = await api.get(`/items?${query}`);
        expect(res.status, query).toBe(422);
        expect(res.body.detail[0].loc, query).toEqual(['query', query.split('=')[0]]);
      }
      expect(env.logged).toEqual([]);
    });

    it('answers 422 for a between without two values, a repeated single-value key, or an integer out of range', async () => {
      for (const query of [
        'price__between=10',
        'price__between=1,2,3',
        'name=a&name=b',
        'id=99999999999999999999',
        'id=2147483648',
      ]) {
        expect((await api.get(`/items?${query}`)).status, query).toBe(422);
      }
    });

    it('answers 422 for an in-list longer than 1000 values', async () => {
      const list = Array.from({ length: 1001 }, (_, i) => i + 1).join(',');
      expect((await api.get(`/items?id__in=${list}`)).status).toBe(422);
      expect((await api.get(`/items?id__in=${list.slice(0, list.lastIndexOf(','))}`)).status).toBe(200);
    });

    it('accepts custom operators, given as customFilters or by the crud instance', async () => {
      const byOption = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            path: '/ops',
            customFilters: { cheaper_than: cheaperThan },
            filterConfig: { price__cheaper_than: null },
          }),
        ),
      );
      expect(ids(await byOption.get('/ops?price__cheaper_than=6'))).toEqual([3, 4]);
      const repo = new CrudRepository(Item, { customFilters: { cheaper_than: cheaperThan } });
      const byCrud = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/ops', crud: repo, filterConfig: { price__cheaper_than: null } })),
      );
      expect(ids(await byCrud.get('/ops?price__cheaper_than=6'))).toEqual([3, 4]);
    });

    it('applies a scalar default when the query gives no value, and lets the query replace it', async () => {
      const garden = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/garden', filterConfig: { category: 'garden', price__gte: null } })),
      );
      expect(ids(await garden.get('/garden'))).toEqual([3]);
      expect(ids(await garden.get('/garden?category=food'))).toEqual([4, 5]);
      expect(ids(await garden.get('/garden?price__gte=5'))).toEqual([3]);
    });

    describe('dependency-valued filters (row-level scoping, rule 8)', () => {
      let scoped: Api;
      let calls = 0;
      const org: Dependency<string> = (req) => {
        calls++;
        return req.headers['x-org'] ?? 'tools';
      };

      beforeAll(async () => {
        scoped = await env.serve(
          crudRouter(
            itemOptions(env.knex, {
              path: '/scoped',
              filterConfig: new FilterConfig({ category: org, price__gte: null }),
            }),
          ),
        );
      });

      it('is evaluated on every request', async () => {
        const before = calls;
        expect(ids(await scoped.get('/scoped'))).toEqual([1, 2]);
        expect(ids(await scoped.get('/scoped', { 'x-org': 'food' }))).toEqual([4, 5]);
        expect(ids(await scoped.get('/scoped', { 'x-org': 'garden' }))).toEqual([3]);
        expect(calls - before).toBe(3);
      });

      it('cannot be overridden or widened by the client', async () => {
        expect(ids(await scoped.get('/scoped?category=food', { 'x-org': 'tools' }))).toEqual([1, 2]);
        expect(ids(await scoped.get('/scoped?category=food&category=garden'))).toEqual([1, 2]);
        expect(ids(await scoped.get('/scoped?price__gte=20'))).toEqual([2]);
        expect(ids(await scoped.get('/scoped?category__eq=food'))).toEqual([1, 2]);
      });

      it('scopes reads and writes by id too: a row outside the scope is not found', async () => {
        expect((await scoped.get('/scoped/1')).status).toBe(200);
        expect(await scoped.get('/scoped/3')).toMatchObject({ status: 404, body: { detail: 'Item not found' } });
        expect((await scoped.patch('/scoped/3', { price: 1 })).status).toBe(404);
        expect((await scoped.del('/scoped/3')).status).toBe(404);
        expect((await scoped.del('/scoped/db_delete/3')).status).toBe(404);
        expect((await api.get('/items/3')).body).toMatchObject({ price: 5.25 });
      });

      it('fails closed when the dependency returns undefined: a logged 500, never every row', async () => {
        const leaky = await env.serve(
          crudRouter(
            itemOptions(env.knex, { path: '/leaky', filterConfig: new FilterConfig({ category: () => undefined }) }),
          ),
        );
        const before = env.logged.length;
        const list = await leaky.get('/leaky');
        expect(list.status).toBe(500);
        expect(list.body).toEqual({ detail: 'Internal server error' });
        expect((await leaky.get('/leaky/1')).status).toBe(500);
        expect((await leaky.del('/leaky/1')).status).toBe(500);
        expect((await api.get('/items/1')).status).toBe(200);
        expect(String(env.logged.slice(before)[0])).toMatch(/filter 'category' returned undefined/);
      });
    });
  });
}
