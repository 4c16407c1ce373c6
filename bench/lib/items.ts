import type { Knex } from 'knex';
import { Model } from 'objection';
import type { Engine } from './db';

// The bench's own copy of the generic item (same shape as test/fixtures/models.ts),
// so the benchmark does not move when the test fixtures do.

const ts = { type: ['string', 'null'], format: 'date-time' };

export class Item extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
      name: { type: ['string', 'null'], maxLength: 100 },
      description: { type: ['string', 'null'] },
      category: { type: ['string', 'null'], maxLength: 50 },
      price: { type: ['number', 'null'] },
      last_sold: ts,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: ts,
      is_deleted: { type: 'boolean' },
      deleted_at: ts,
    },
  };

  // No $beforeInsert for the creation time: the repository stamps `created_at` itself
  // (its createdAtColumn), as an app's model without hooks gets it. A hook would keep the
  // writes on objection's lane, which the tests cover.
}

/** Every column of `items`, in table order. */
export const ITEM_COLUMNS = [
  'id',
  'name',
  'description',
  'category',
  'price',
  'last_sold',
  'created_at',
  'updated_at',
  'is_deleted',
  'deleted_at',
] as const;

/** Number of categories (`c0` … `c19`): each holds about 1/20 of the rows. */
export const CATEGORIES = 20;

/**
 * How `items` is indexed: `shaped`, the index a deployer would add for "active items of a
 * category, by price" (the soft-delete flag is part of every read, so it sits in the index
 * too); `ordinary`, an index on `category` alone, as one is added for a filter without
 * looking at the statements a library sends; `documented`, the index docs/pagination.md
 * names for this filter and sort: the shaped one, its price `NULLS FIRST` on PostgreSQL,
 * so that it serves crudsmith's NULL order in both directions.
 */
export type ItemsIndex = 'shaped' | 'ordinary' | 'documented';

/** Creates `items` with its `index`. */
export async function createItems(knex: Knex, index: ItemsIndex = 'shaped'): Promise<void> {
  await knex.schema.createTable('items', (t) => {
    t.increments('id');
    t.string('name', 100).nullable().unique();
    t.text('description').nullable();
    t.string('category', 50).nullable();
    t.decimal('price', 10, 2).nullable();
    t.datetime('last_sold', { precision: 3 }).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.datetime('updated_at', { precision: 3 }).nullable();
    t.boolean('is_deleted').notNullable().defaultTo(false);
    t.datetime('deleted_at', { precision: 3 }).nullable();
    if (index === 'shaped') t.index(['category', 'is_deleted', 'price'], 'items_category_active_price');
    else if (index === 'ordinary') t.index(['category'], 'items_category_idx');
  });
  if (index !== 'documented') return;
  // knex writes no NULLS FIRST; SQLite's NULL order is crudsmith's already.
  const nulls = knex.client.config.client === 'pg' ? ' NULLS FIRST' : '';
  await knex.raw(`CREATE INDEX items_category_price ON items (category, is_deleted, price${nulls})`);
}

/** A small deterministic PRNG (mulberry32), so every run seeds and asks the same things. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Inserts `count` items in batches inside one transaction. About 2% are soft-deleted and
 * 1% have no price, so the soft-delete clause and NULL ordering both matter. `from` numbers
 * the first item, so a table can be grown by further calls (names are unique).
 */
export async function seedItems(knex: Knex, count: number, from = 0): Promise<void> {
  const random = prng(42 + from);
  // SQLite compiles a multi-row insert as a compound SELECT (at most 500 terms).
  const batch = knex.client.config.client === 'pg' ? 1000 : 500;
  const epoch = Date.UTC(2024, 0, 1);
  await knex.transaction(async (trx) => {
    for (let start = from; start < from + count; start += batch) {
      const rows: Record<string, unknown>[] = [];
      for (let i = start; i < Math.min(from + count, start + batch); i++) {
        const deleted = random() < 0.02;
        rows.push({
          name: `item-${i}`,
          description: `Item number ${i}, a thing of category c${i % CATEGORIES} that someone may buy.`,
          category: `c${i % CATEGORIES}`,
          price: random() < 0.01 ? null : Math.round(random() * 100000) / 100,
          last_sold: random() < 0.5 ? null : new Date(epoch + Math.floor(random() * 365 * 86400000)),
          created_at: new Date(epoch + i * 1000),
          updated_at: null,
          is_deleted: deleted,
          deleted_at: deleted ? new Date(epoch + i * 1000 + 5000) : null,
        });
      }
      await trx('items').insert(rows);
    }
  });
}

type Row = Record<string, any>;

/**
 * The row conversion a hand-written handler needs on each engine to answer the values
 * crudsmith answers: pg gives decimals as strings; SQLite gives booleans as 0/1 and
 * datetimes as epoch numbers. Only the columns the row has are touched.
 */
export function rowMapper(engine: Engine): (row: Row) => Row {
  if (engine === 'postgres') {
    // Timestamps and booleans already arrive as Date and boolean.
    return (row) => {
      if (row.price != null) row.price = Number(row.price);
      return row;
    };
  }
  const date = (value: number | null) => (value === null ? null : new Date(value));
  return (row) => {
    if ('is_deleted' in row) row.is_deleted = row.is_deleted === 1;
    if ('last_sold' in row) row.last_sold = date(row.last_sold);
    if ('created_at' in row) row.created_at = date(row.created_at);
    if ('updated_at' in row) row.updated_at = date(row.updated_at);
    if ('deleted_at' in row) row.deleted_at = date(row.deleted_at);
    return row;
  };
}
