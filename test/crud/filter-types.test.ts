// The operators a filter may use follow its column's type: text-matching operators need
// a text column. Declaring one elsewhere fails when the routes are built, and
// `operators: 'all'` leaves them out, in the routes and in their OpenAPI parameters.
import knexFactory, { type Knex } from 'knex';
import { Model } from 'objection';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createRegistry,
  crud,
  crudRouter,
  Filter,
  filter,
  type CrudOptions,
  type CrudRouter,
} from '@crudsmith/core';
import { Book, Item } from '../fixtures/models';
import { ItemCreate, ItemRead, ItemUpdate } from './schemas';

// Built without a connection: nothing here touches the database.
const knex: Knex = knexFactory({
  client: 'better-sqlite3',
  connection: { filename: ':memory:' },
  useNullAsDefault: true,
});
afterAll(() => knex.destroy());

const TEXT_OPERATORS = ['like', 'notlike', 'ilike', 'notilike', 'startswith', 'endswith', 'contains', 'match'];
const NOT_TEXT = ['id', 'price', 'is_deleted', 'last_sold', 'sold_on'];

/** Item with a date (not date-time) column too. */
class DatedItem extends Item {
  static override jsonSchema = {
    ...Item.jsonSchema,
    properties: { ...Item.jsonSchema.properties, sold_on: { type: ['string', 'null'], format: 'date' } },
  };
}

const items = (extra: Partial<CrudOptions> = {}): CrudOptions => ({
  session: knex,
  model: DatedItem,
  path: '/items',
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  selectSchema: ItemRead,
  ...extra,
});

const listParameters = (router: CrudRouter): string[] =>
  router.routes.find((r) => r.method === 'GET' && r.path === '/items')!.doc!.parameters!.map((p) => p.name as string);

describe('text operators on a number, boolean or date column', () => {
  it('are refused at configuration, naming the model, the column and the operator', () => {
    for (const column of NOT_TEXT) {
      for (const op of TEXT_OPERATORS) {
        const key = `${column}__${op}`;
        expect(() => crudRouter(items({ filterConfig: { [key]: null } })), key).toThrow(ConfigurationError);
        expect(() => crudRouter(items({ filterConfig: { [key]: null } })), key).toThrow(
          new RegExp(`model DatedItem: the operator '${op}' .*column '${column}'`),
        );
      }
    }
    expect(() => crudRouter(items({ model: Item, filterConfig: { price__contains: null } }))).toThrow(
      "Invalid filter 'price__contains' on model Item: the operator 'contains' matches text, and column 'price' holds number values",
    );
    expect(() =>
      crudRouter({
        session: knex,
        model: Book,
        path: '/books',
        includedMethods: ['readMulti'],
        filterConfig: { 'reviews.stars__startswith': null },
      }),
    ).toThrow(
      "Invalid filter 'reviews.stars__startswith' on model Book: the operator 'startswith' matches text, and column 'stars' of model Review holds integer values",
    );
  });

  it('are refused at registry compile when declared by @Filter or filter()', () => {
    class Decorated extends Item {
      @Filter({ operators: ['gte', 'contains'] }) price?: number | null;
    }
    crud(Decorated, { createSchema: ItemCreate, updateSchema: ItemUpdate });
    expect(() => createRegistry([Decorated]).compile({ session: knex })).toThrow(
      /'price__contains' on model Decorated: the operator 'contains' .*column 'price'/,
    );
    class Plain extends Item {}
    filter(Plain, 'last_sold', { operators: ['ilike'] });
    crud(Plain, { createSchema: ItemCreate, updateSchema: ItemUpdate });
    expect(() => createRegistry([Plain]).compile({ session: knex })).toThrow(
      /'last_sold__ilike' on model Plain: the operator 'ilike' .*column 'last_sold'/,
    );
  });

  it("stay open on text columns, and a custom operator is the app's own to place", () => {
    expect(() =>
      crudRouter(items({ filterConfig: Object.fromEntries(TEXT_OPERATORS.map((op) => [`name__${op}`, null])) })),
    ).not.toThrow();
    expect(() =>
      crudRouter(items({ customFilters: { near: () => () => undefined }, filterConfig: { price__near: null } })),
    ).not.toThrow();
  });
});

describe("operators: 'all'", () => {
  it("on a number, boolean or date column leaves text operators out of the routes' OpenAPI parameters", () => {
    class Everything extends DatedItem {
      @Filter({ operators: 'all' }) id!: number;
      @Filter({ operators: 'all' }) name?: string | null;
      @Filter({ operators: 'all' }) price?: number | null;
      @Filter({ operators: 'all' }) is_deleted?: boolean;
      @Filter({ operators: 'all' }) last_sold?: Date | null;
      @Filter({ operators: 'all' }) sold_on?: string | null;
    }
    crud(Everything, { path: '/items', createSchema: ItemCreate, updateSchema: ItemUpdate, selectSchema: ItemRead });
    const params = listParameters(createRegistry([Everything]).compile({ session: knex })[0]);
    for (const op of TEXT_OPERATORS) expect(params).toContain(`name__${op}`);
    for (const column of NOT_TEXT) {
      expect(params).toEqual(
        expect.arrayContaining([column, `${column}__gte`, `${column}__in`, `${column}__is_not`, `${column}__between`]),
      );
      for (const op of TEXT_OPERATORS) expect(params, column).not.toContain(`${column}__${op}`);
    }
  });

  it("reads the column's type at compile, so it may be declared before jsonSchema is set", () => {
    class Late extends Model {
      static override tableName = 'items';
    }
    filter(Late, 'price', { operators: 'all' });
    filter(Late, 'name', { operators: 'all' });
    Late.jsonSchema = Item.jsonSchema;
    crud(Late, { path: '/items', createSchema: ItemCreate, updateSchema: ItemUpdate, selectSchema: ItemRead });
    const params = listParameters(createRegistry([Late]).compile({ session: knex })[0]);
    expect(params).toEqual(expect.arrayContaining(['price', 'price__lte', 'name__ilike', 'name__match']));
    expect(params).not.toContain('price__ilike');
  });

  it('keeps the order and overrides of the declarations around it', () => {
    class Mixed extends Item {}
    filter(Mixed, { price__gte: 5 });
    filter(Mixed, 'price', { operators: 'all' });
    filter(Mixed, { price__lte: 50 });
    crud(Mixed, { path: '/items', createSchema: ItemCreate, updateSchema: ItemUpdate, selectSchema: ItemRead });
    const options = createRegistry([Mixed]).optionsOf(Mixed, { session: knex });
    const filters = (options.filterConfig as { filters: Record<string, unknown> }).filters;
    expect(Object.keys(filters).slice(0, 3)).toEqual(['price__gte', 'price', 'price__ne']);
    // A later declaration wins, as it did before 'all' waited for the column's type.
    expect(filters).toMatchObject({ price__gte: null, price__lte: 50 });
  });
});
