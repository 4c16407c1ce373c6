// A `match` filter on MySQL/MariaDB needs a FULLTEXT index on its column: without one every
// such request failed with a 500. Starting the app refuses the filter, naming the model and
// the column; and a query that still reaches the database without one is a clear 400.
// PostgreSQL and SQLite have their own full-text paths and need no index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  bootstrap,
  CrudRepository,
  crudRouter,
  MissingFulltextIndexError,
  type CrudOptions,
} from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Book, createSchema, Item } from '../fixtures/models';
import { seedItems, seedLibrary } from '../fixtures/seed';

describe.each(ENGINES)('full-text indexes of match filters on %s', (engine) => {
  let db: TestDatabase;
  const start = (model: CrudOptions['model'], filterConfig: Record<string, null>) =>
    bootstrap({
      routers: [crudRouter({ session: db.knex, model, path: '/rows', filterConfig, includedMethods: ['readMulti'] })],
    }).start(db.knex);

  beforeAll(async () => {
    db = await openDatabase(engine);
    await createSchema(db.knex);
    await seedItems(db.knex);
    await seedLibrary(db.knex);
  });
  afterAll(() => db?.destroy());

  it('starts when every column a match filter searches has a FULLTEXT index', async () => {
    await expect(start(Item, { description__match: null, name__contains: null })).resolves.toBeUndefined();
  });

  it('refuses to start with a match filter on a column without one, naming the model and the column (MySQL/MariaDB only)', async () => {
    const started = start(Item, { description__match: null, name__match: null });
    if (engine !== 'mysql') return void (await expect(started).resolves.toBeUndefined());
    const error = await started.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingFulltextIndexError);
    expect(error).toMatchObject({ model: 'Item', table: 'items', column: 'name' });
    expect((error as Error).message).toMatch(/Model Item allows the 'match' filter on column 'name'.*FULLTEXT/);
  });

  it("checks a related model's column too", async () => {
    const started = start(Book, { 'author.name__match': null });
    if (engine !== 'mysql') return void (await expect(started).resolves.toBeUndefined());
    await expect(started).rejects.toMatchObject({ name: 'MissingFulltextIndexError', model: 'Author', column: 'name' });
  });

  it('checks a route a plugin copied under a path of its own, as versioning does', async () => {
    const routes = crudRouter({
      session: db.knex,
      model: Item,
      path: '/rows',
      filterConfig: { name__match: null },
      includedMethods: ['readMulti'],
    }).routes;
    const started = bootstrap({
      plugins: [{ name: 'v1', routes: routes.map((route) => ({ ...route, path: `/v1${route.path}` })) }],
    }).start(db.knex);
    if (engine !== 'mysql') return void (await expect(started).resolves.toBeUndefined());
    await expect(started).rejects.toMatchObject({ name: 'MissingFulltextIndexError', model: 'Item', column: 'name' });
  });

  it('a match query on a column without an index is a 400 with a clear detail, never a 500', async () => {
    const items = new CrudRepository(Item);
    const query = items.getMulti(db.knex, { filters: { name__match: 'alpha' } });
    if (engine === 'postgres') return void expect((await query).data.map((row) => row.name)).toEqual(['Alpha']);
    const error = await query.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    expect((error as BadRequestError).detail).toMatch(/'match'.*full-text/);
  });
});
