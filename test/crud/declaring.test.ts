// Declaring CRUD endpoints: the startup validations (each a
// ConfigurationError when the app builds its routes, never at a request), the decorators
// and their function twins, and the per-app registry (no global state).
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createRegistry,
  Crud,
  crud,
  crudRouter,
  EndpointCreator,
  Filter,
  FilterConfig,
  filter,
  routesOf,
  SoftDelete,
  softDelete,
  type CrudOptions,
  type CrudRouter,
  type FilterValue,
  type NeutralResult,
} from '@crudsmith/core';
import { createRequest, runRoute } from '@crudsmith/core/adapter';
import { Book, createSchema, Item } from '../fixtures/models';
import { seedItems } from '../fixtures/seed';
import { ItemCreate, ItemDelete, ItemRead, ItemUpdate } from './schemas';

// Built once, without a connection: nothing here may touch the database before a request.
const knex: Knex = knexFactory({
  client: 'better-sqlite3',
  connection: { filename: ':memory:' },
  useNullAsDefault: true,
});
afterAll(() => knex.destroy());

const items = (extra: Partial<CrudOptions> = {}): CrudOptions => ({
  session: knex,
  model: Item,
  path: '/items',
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  deleteSchema: ItemDelete,
  selectSchema: ItemRead,
  ...extra,
});
const books = (extra: Partial<CrudOptions> = {}): CrudOptions => ({
  session: knex,
  model: Book,
  path: '/books',
  includedMethods: ['read', 'readMulti'],
  ...extra,
});

/** The error a build throws (so its message can be read), failing when it throws none. */
function buildError(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected the build to throw a ConfigurationError');
}

describe('startup validations: thrown when the routes are built', () => {
  it('includedMethods together with deletedMethods', () => {
    expect(
      buildError(() => crudRouter(items({ includedMethods: ['read'], deletedMethods: ['delete'] }))).message,
    ).toMatch(/includedMethods and deletedMethods/);
  });

  it('includeRelationships together with joinsConfig', () => {
    const error = buildError(() =>
      crudRouter(books({ includeRelationships: true, joinsConfig: [{ relation: 'author' }] })),
    );
    expect(error.message).toMatch(/mutually exclusive/);
    expect(() =>
      crudRouter(books({ includeRelationships: false, joinsConfig: [{ relation: 'author' }] })),
    ).not.toThrow();
  });

  it('an unknown relationship name: the message lists the invalid names and the available relationships', () => {
    const { message } = buildError(() => crudRouter(books({ includeRelationships: ['author', 'publisher', 'cover'] })));
    expect(message).toContain('publisher, cover');
    expect(message).toContain('author, reviews, tags');
    expect(message).not.toMatch(/names?: author/);
  });

  it('an unknown relation in joinsConfig, or a join field that is not a column', () => {
    expect(buildError(() => crudRouter(books({ joinsConfig: [{ relation: 'publisher' }] }))).message).toContain(
      'publisher',
    );
    expect(
      buildError(() => crudRouter(books({ joinsConfig: [{ relation: 'author', schemaToSelect: ['nickname'] }] })))
        .message,
    ).toContain('nickname');
  });

  it('a filter on an unknown column: the message names it and says it was not found in the model', () => {
    for (const key of ['colour', 'colour__gte', 'author.nickname', 'publisher.name']) {
      const { message } = buildError(() => crudRouter(books({ filterConfig: { [key]: null } })));
      expect(message, key).toContain(key);
      expect(message, key).toMatch(/not found in model/);
    }
  });

  it('a filter with an unknown operator: the message names the operator and the allowed ones, not a column', () => {
    for (const key of ['price__bogus', 'author.name__near']) {
      const { message } = buildError(() =>
        crudRouter((key.includes('.') ? books : items)({ filterConfig: new FilterConfig({ [key]: null }) })),
      );
      expect(message, key).toContain(
        `Unknown filter operator '${key.slice(key.lastIndexOf('__') + 2)}' in filter '${key}'`,
      );
      expect(message, key).toContain('eq, ne, gt, gte, lt, lte, is, is_not, like');
      expect(message, key).not.toMatch(/column/);
    }
    const custom = buildError(() =>
      crudRouter(items({ customFilters: { near: () => () => undefined }, filterConfig: { price__far: null } })),
    ).message;
    expect(custom).toMatch(/the operators are eq, .*, and the custom near$/);
  });

  it('a filter default of the wrong type', () => {
    const wrong: Record<string, FilterValue>[] = [
      { price: 'cheap' },
      { id: 1.5 },
      { is_deleted: 'maybe' },
      { last_sold: 'yesterday' },
      { price__gte: true },
    ];
    for (const filterConfig of wrong) {
      expect(() => crudRouter(items({ filterConfig })), JSON.stringify(filterConfig)).toThrow(ConfigurationError);
    }
    expect(() =>
      crudRouter(
        items({ filterConfig: { price__gte: 10, is_deleted: false, category: 'tools', last_sold__lt: '2024-01-01' } }),
      ),
    ).not.toThrow();
  });

  it('a select, create or update schema field that is not a column', () => {
    expect(buildError(() => crudRouter(items({ selectSchema: ['id', 'colour'] }))).message).toContain('colour');
    expect(buildError(() => crudRouter(items({ createSchema: ['name', 'shade'] }))).message).toBe(
      "createSchema field 'shade' is not a column of model Item",
    );
    expect(buildError(() => crudRouter(items({ updateSchema: ['name', 'tint'] }))).message).toBe(
      "updateSchema field 'tint' is not a column of model Item",
    );
  });

  it('a route clash, within a router or between routers', () => {
    expect(buildError(() => crudRouter(items({ endpointNames: { dbDelete: '' } }))).message).toMatch(/Route clash/);
    const creator = new EndpointCreator(items());
    creator.addRoutesToRouter();
    creator.addCustomRoute({ method: 'GET', path: '/:slug', handler: async () => ({ status: 200, json: null }) });
    expect(buildError(() => creator.router).message).toMatch(/Route clash/);
    expect(buildError(() => routesOf(crudRouter(items()), crudRouter(items({ tags: ['again'] })))).message).toMatch(
      /Route clash/,
    );
  });

  it('other misfits: unknown operation names, a missing write schema, an auto field that is not a column', () => {
    expect(() => crudRouter(items({ includedMethods: ['fetch'] }))).toThrow(ConfigurationError);
    expect(() => crudRouter(items({ endpointNames: { fetch: 'x' } }))).toThrow(ConfigurationError);
    expect(() => crudRouter(items({ createSchema: undefined }))).toThrow(ConfigurationError);
    expect(() => crudRouter(items({ createSchema: undefined, deletedMethods: ['create'] }))).not.toThrow();
    expect(() => crudRouter(items({ createConfig: { autoFields: { owner_id: () => 1 } } }))).toThrow(
      ConfigurationError,
    );
    expect(() => crudRouter(items({ defaultLimit: 50, maxLimit: 10 }))).toThrow(ConfigurationError);
  });

  it('through the registry, each throws at compile, not when the model is declared or added', () => {
    const declare = (options: Parameters<typeof crud>[1]) => {
      class Declared extends Item {}
      crud(Declared, { createSchema: ItemCreate, updateSchema: ItemUpdate, ...options });
      return Declared;
    };
    const bad = [
      declare({ includedMethods: ['read'], deletedMethods: ['delete'] }),
      declare({ filterConfig: { colour: null } }),
      declare({ filterConfig: { price: 'cheap' } }),
      declare({ includeRelationships: ['nope'] }),
    ];
    for (const model of bad) {
      const registry = createRegistry([model]);
      expect(() => registry.compile({ session: knex })).toThrow(ConfigurationError);
    }
    class BadProperty extends Item {
      @Filter() colour?: string;
    }
    crud(BadProperty, { createSchema: ItemCreate, updateSchema: ItemUpdate });
    expect(buildError(() => createRegistry([BadProperty]).compile({ session: knex })).message).toMatch(
      /colour.*not found in model/,
    );
  });

  it('a registry with two models at one path is a route clash', () => {
    class First extends Item {}
    class Second extends Item {}
    crud(First, { path: '/things', includedMethods: ['read'] });
    crud(Second, { path: '/things', includedMethods: ['read'] });
    expect(buildError(() => createRegistry([First, Second]).compile({ session: knex })).message).toMatch(/Route clash/);
  });
});

@Crud({
  path: '/items',
  tags: ['items'],
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  deleteSchema: ItemDelete,
  selectSchema: ItemRead,
})
@SoftDelete()
@Filter({ name: null })
class DecoratedItem extends Item {
  @Filter({ operators: ['gte', 'lt'] }) price?: number | null;
  @Filter({ default: 'tools' }) category?: string | null;
}

class PlainItem extends Item {}
filter(PlainItem, 'price', { operators: ['gte', 'lt'] });
filter(PlainItem, 'category', { default: 'tools' });
filter(PlainItem, { name: null });
softDelete(PlainItem);
crud(PlainItem, {
  path: '/items',
  tags: ['items'],
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  deleteSchema: ItemDelete,
  selectSchema: ItemRead,
});

/** What two routers must share to be the same: everything but the handler functions. */
const shape = (router: CrudRouter) => ({
  path: router.path,
  tags: router.tags,
  routes: router.routes.map(({ method, path, operation, dependencies, doc }) => ({
    method,
    path,
    operation,
    dependencies: dependencies.length,
    doc,
  })),
});

describe('decorators and their function twins', () => {
  let db: Knex;

  beforeAll(async () => {
    db = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    await createSchema(db);
    await seedItems(db);
  });
  afterAll(() => db?.destroy());

  const list = async (router: CrudRouter, query: Record<string, string>): Promise<NeutralResult> => {
    const route = router.routes.find((r) => r.method === 'GET' && r.path === '/items')!;
    return runRoute(
      route,
      createRequest({ method: 'GET', path: '/items', query, headers: {}, body: undefined, clientAddress: '127.0.0.1' }),
    );
  };

  it('@Crud/@SoftDelete/@Filter and crud()/softDelete()/filter() compile to the same router', () => {
    const [decorated] = createRegistry([DecoratedItem]).compile({ session: knex });
    const [plain] = createRegistry([PlainItem]).compile({ session: knex });
    expect(shape(decorated)).toEqual(shape(plain));
    const params = decorated.routes
      .find((r) => r.operation === 'items_read_multi')!
      .doc!.parameters!.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['price', 'price__gte', 'price__lt', 'category', 'name']));
  });

  it('both answer the same requests', async () => {
    const [decorated] = createRegistry([DecoratedItem]).compile({ session: db });
    const [plain] = createRegistry([PlainItem]).compile({ session: db });
    const queries: Record<string, string>[] = [
      {},
      { category: 'food' },
      { price__gte: '10', category: 'tools' },
      { name: 'Gamma', category: 'garden' },
    ];
    for (const query of queries) {
      const [a, b] = [await list(decorated, query), await list(plain, query)];
      expect(a.status).toBe(200);
      expect(a).toEqual(b);
    }
    expect(((await list(plain, {})).json as { total_count: number }).total_count).toBe(2);
  });

  it('the same as crudRouter with the equivalent options', () => {
    const [decorated] = createRegistry([DecoratedItem]).compile({ session: knex });
    const direct = crudRouter({
      ...items({ tags: ['items'], model: DecoratedItem }),
      isDeletedColumn: 'is_deleted',
      deletedAtColumn: 'deleted_at',
      filterConfig: { price: null, price__gte: null, price__lt: null, category: 'tools', name: null },
    });
    expect(shape(direct)).toEqual(shape(decorated));
  });

  it("metadata is the class's own: a subclass does not inherit @Crud", () => {
    class Child extends DecoratedItem {}
    expect(buildError(() => createRegistry([Child]).compile({ session: knex })).message).toMatch(
      /not decorated with @Crud/,
    );
  });
});

describe('the registry', () => {
  it('is one per app: two registries share no state', () => {
    const first = createRegistry([DecoratedItem]);
    const second = createRegistry();
    second.add(PlainItem);
    expect(first.compile({ session: knex }).map((r) => r.path)).toEqual(['/items']);
    expect(second.compile({ session: knex })).toHaveLength(1);
    expect(createRegistry().compile({ session: knex })).toEqual([]);
    expect(first.compile({ session: knex })).toHaveLength(1);
  });

  it('throws at compile for a model without @Crud, naming it', () => {
    const registry = createRegistry([Item]);
    expect(buildError(() => registry.compile({ session: knex })).message).toMatch(/Item is not decorated with @Crud/);
  });

  it('passes compile defaults to every model unless its @Crud says otherwise', async () => {
    const [router] = createRegistry([DecoratedItem]).compile({
      session: knex,
      defaults: { maxLimit: 5, defaultLimit: 2, tags: ['ignored'] },
    });
    expect(router.tags).toEqual(['items']);
    const readMulti = router.routes.find((r) => r.operation === 'items_read_multi')!;
    const limit = readMulti.doc!.parameters!.find((p) => p.name === 'limit') as { schema: { maximum: number } };
    expect(limit.schema.maximum).toBe(5);
  });
});

describe('router-wide options', () => {
  it('makes If-Match required on every compiled model with requireIfMatch, and answers 428 without it', async () => {
    const [router] = createRegistry([DecoratedItem]).compile({ session: knex, requireIfMatch: true });
    const update = router.routes.find((r) => r.operation === 'items_update')!;
    expect(update.doc!.parameters).toContainEqual(expect.objectContaining({ name: 'If-Match', required: true }));
    const req = createRequest({
      method: 'PATCH',
      path: '/items/1',
      params: { id: '1' },
      query: {},
      headers: { 'content-type': 'application/json' },
      body: { price: 1 },
      clientAddress: '127.0.0.1',
    });
    expect((await runRoute(update, req)).status).toBe(428);
  });
});
