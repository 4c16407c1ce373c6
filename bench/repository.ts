import { deepStrictEqual } from 'node:assert/strict';
import type { Knex } from 'knex';
import { CrudRepository } from '@crudsmith/core';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import { CATEGORIES, createItems, Item, ITEM_COLUMNS, prng, rowMapper, seedItems } from './lib/items';
import { compare, type Operation } from './lib/measure';
import type { ResultRow, Suite } from './lib/suite';

// crudsmith's CrudRepository against the same queries written by hand in knex. Both sides
// send the same SQL (checked before measuring) and answer the same values (checked too):
// the hand-written side converts what its driver returns (pg decimals and counts are
// strings, SQLite booleans 0/1 and datetimes epoch numbers), as a real handler must.

const ROWS = Number(process.env.BENCH_ROWS) || 100_000;
const PAGE = { offset: 40, limit: 20, minPrice: 10 };

type Row = Record<string, any>;

/** The categories and ids each side asks for, in the same order: `c0`, `c1`, ...; random ids. */
function inputs(): { category: () => string; id: () => number } {
  let n = 0;
  const random = prng(7);
  return { category: () => `c${n++ % CATEGORIES}`, id: () => 1 + Math.floor(random() * ROWS) };
}

/** What crudsmith does: one call each. */
function crudsmithSide(knex: Knex): { list: Operation; get: Operation } {
  const repo = new CrudRepository(Item);
  const next = inputs();
  return {
    list: () =>
      repo.getMulti(knex, {
        filters: { category: next.category(), price__gte: PAGE.minPrice },
        sortColumns: ['price'],
        sortOrders: ['desc'],
        offset: PAGE.offset,
        limit: PAGE.limit,
      }),
    get: () => repo.get(knex, { id: next.id() }),
  };
}

/** The same reads written by hand in knex. */
function knexSide(knex: Knex, engine: Engine): { list: Operation; get: Operation } {
  const columns = ITEM_COLUMNS.map((c) => `items.${c}`);
  const map = rowMapper(engine);
  const nullsLast = engine === 'postgres' ? 'last' : undefined;
  const next = inputs();
  return {
    async list() {
      const category = next.category();
      const where = (qb: Knex.QueryBuilder) =>
        qb.where('items.is_deleted', false).where('items.category', category).where('items.price', '>=', PAGE.minPrice);
      const [counted, rows] = await Promise.all([
        where(knex.from('items')).count({ count: '*' }),
        where(knex.from('items').select(columns))
          .orderBy('items.price', 'desc', nullsLast)
          .orderBy('items.id', 'desc')
          .offset(PAGE.offset)
          .limit(PAGE.limit),
      ]);
      return { data: (rows as Row[]).map(map), total_count: Number(counted[0].count) };
    },
    async get() {
      const row = await knex
        .from('items')
        .select(columns)
        .where('items.is_deleted', false)
        .where('items.id', next.id())
        .orderBy('items.id', 'asc')
        .first();
      return row ? map(row) : null;
    },
  };
}

/** The statements (SQL and bindings, sorted) one call sends. */
async function statements(knex: Knex, op: Operation): Promise<{ result: unknown; sql: string[] }> {
  const sent: string[] = [];
  const listen = (query: { sql: string; bindings?: unknown[] }) =>
    sent.push(`${query.sql} ${JSON.stringify(query.bindings ?? [])}`);
  knex.on('query', listen);
  try {
    const result = await op();
    return { result, sql: sent.sort() };
  } finally {
    knex.off('query', listen);
  }
}

/** Fails the run unless both sides send the same SQL and answer the same values. */
async function checkSame(knex: Knex, ours: Operation, theirs: Operation, name: string): Promise<void> {
  for (let i = 0; i < 25; i++) {
    const a = await statements(knex, ours);
    const b = await statements(knex, theirs);
    deepStrictEqual(a.sql, b.sql, `${name}: crudsmith and hand-written knex send different SQL`);
    deepStrictEqual(a.result, b.result, `${name}: crudsmith and hand-written knex answer different values`);
  }
}

async function prepare(knex: Knex, engine: Engine): Promise<void> {
  const started = Date.now();
  await createItems(knex);
  await seedItems(knex, ROWS);
  await knex.raw(engine === 'postgres' ? 'VACUUM ANALYZE items' : 'ANALYZE');
  console.log(
    `  ${engine}: ${ROWS.toLocaleString('en-US')} rows seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

export const repositorySuite: Suite = {
  name: 'repository',
  async run() {
    const results: ResultRow[] = [];
    for (const engine of ENGINES) {
      const db = await openDatabase(engine);
      if (!db) continue;
      try {
        await prepare(db.knex, engine);
        const ours = crudsmithSide(db.knex);
        const theirs = knexSide(db.knex, engine);
        const operations = [
          { operation: `getMulti ${PAGE.limit} + count`, ours: ours.list, theirs: theirs.list },
          { operation: 'get by id', ours: ours.get, theirs: theirs.get },
        ];
        for (const { operation, ours: a, theirs: b } of operations) {
          await checkSame(db.knex, a, b, `${engine} ${operation}`);
          const row: ResultRow = { suite: 'repository', engine, operation, ...(await compare(a, b)) };
          console.log(`  ${engine}: ${operation}: ratio ${row.ratio.toFixed(2)}`);
          results.push(row);
        }
      } finally {
        await db.close();
      }
    }
    return results;
  },
};
