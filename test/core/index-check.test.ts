// A list filtered on a column and sorted on another wants one index shaped after both, or
// the database reads every matching row to count and sort it. Starting the app reads the
// table's indexes from the catalogue and warns, through the app's logger, naming the
// index to add; the documented index silences it, and a catalogue that cannot be read
// never stops the start.
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap, crudRouter, type ErrorLogger } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Item } from '../fixtures/models';

/** The fixtures' soft-deleted item, with a flag to filter on, on a table whose indexes are this suite's. */
class Gadget extends Item {
  static override tableName = 'gadgets';
  static override jsonSchema = {
    ...Item.jsonSchema,
    properties: { ...Item.jsonSchema.properties, is_featured: { type: 'boolean' } },
  };
}

describe.each(ENGINES)('the startup index check on %s', (engine) => {
  let db: TestDatabase;
  let warnings: string[];
  const logger: ErrorLogger = { error: () => undefined, warn: (message) => void warnings.push(message) };
  const start = (
    options: { session?: Knex; indexCheck?: boolean; filterConfig?: Record<string, null>; sortable?: string[] } = {},
  ) =>
    bootstrap({
      routers: [
        crudRouter({
          session: options.session ?? db.knex,
          model: Gadget,
          path: '/gadgets',
          filterConfig: options.filterConfig ?? { category: null, name__contains: null },
          sortable: options.sortable ?? ['price'],
          includedMethods: ['readMulti'],
        }),
      ],
      logger,
      ...('indexCheck' in options ? { indexCheck: options.indexCheck } : { indexCheck: true }),
    }).start(db.knex);
  const documented =
    engine === 'postgres'
      ? 'CREATE INDEX gadgets_category_price ON gadgets (category, is_deleted, price NULLS FIRST)'
      : 'CREATE INDEX gadgets_category_price ON gadgets (category, is_deleted, price)';

  beforeAll(async () => {
    db = await openDatabase(engine);
    await db.knex.schema.createTable('gadgets', (table) => {
      table.increments('id');
      table.string('category').notNullable();
      table.string('name').notNullable();
      table.float('price').nullable();
      table.boolean('is_featured').notNullable().defaultTo(false);
      table.boolean('is_deleted').notNullable().defaultTo(false);
      table.timestamp('deleted_at').nullable();
      table.index(['category'], 'gadgets_category');
    });
  });
  afterAll(() => db?.destroy());
  beforeEach(() => void (warnings = []));

  it('warns when the declared sort has no index, naming the index to add', async () => {
    await start();
    expect(warnings).toEqual([`Gadget lists sort on price with no index to serve them: add ${documented}`]);
  });

  it('names the index an equality filter wants when its column leads none; ranges alone and booleans ask none', async () => {
    await start({ filterConfig: { name: null, price__gte: null, is_featured: null }, sortable: [] });
    expect(warnings).toEqual([
      'Gadget lists filter on name with no index to serve them: add CREATE INDEX gadgets_name ON gadgets (name, is_deleted)',
    ]);
  });

  it('says nothing with the documented index, nor when turned off', async () => {
    if (engine === 'postgres') {
      // A plain index reads NULLs last ascending, where the list wants them first.
      await db.knex.raw('CREATE INDEX gadgets_plain_price ON gadgets (category, is_deleted, price)');
      await start();
      expect(warnings).toHaveLength(1);
      warnings = [];
    }
    await db.knex.raw(documented);
    await start();
    expect(warnings).toEqual([]);
    await db.knex.raw('DROP INDEX gadgets_category_price' + (engine === 'mysql' ? ' ON gadgets' : ''));
    await start({ indexCheck: false });
    await start({ indexCheck: undefined }); // off by default under NODE_ENV=test
    expect(warnings).toEqual([]);
  });

  it('a catalogue it cannot read is a warning, never a failed start', async () => {
    const gone = knexFactory(db.knex.client.config as Knex.Config);
    await gone.destroy();
    await expect(start({ session: gone })).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Index check skipped: /);
  });
});
