import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { batchesOf } from '../../core/src/data/bulk-writes';

// How a bulk write is cut into statements: one per batch, each within the engines' limits.
// No connection is opened: the cut depends on the dialect alone.
describe('bulk batches', () => {
  const pg = knexFactory({ client: 'pg' });
  const sqlite = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
  });
  afterAll(async () => Promise.all([pg.destroy(), sqlite.destroy()]));
  const rows = (count: number, width: number) =>
    Array.from({ length: count }, (_, i) => Object.fromEntries(Array.from({ length: width }, (_, k) => [`c${k}`, i])));
  const sizes = (batches: { rows: unknown[] }[]) => batches.map((batch) => batch.rows.length);

  it('puts up to 1000 rows in one statement, and as many as fit 30,000 parameters when rows are wide', () => {
    expect(sizes(batchesOf(pg, rows(1000, 3)))).toEqual([1000]);
    expect(sizes(batchesOf(pg, rows(1001, 3)))).toEqual([1000, 1]);
    // 40 columns a row: 750 rows make 30,000 parameters.
    const wide = batchesOf(pg, rows(1000, 40));
    expect(sizes(wide)).toEqual([750, 250]);
    expect(wide.map((batch) => batch.start)).toEqual([0, 750]);
  });

  it('cuts on SQLite where the keys a row gives change, and nowhere else', () => {
    const mixed = [{ a: 1 }, { a: 2 }, { a: 3, b: 1 }, { b: 2, a: 4 }, { a: 5 }];
    expect(sizes(batchesOf(sqlite, mixed))).toEqual([2, 2, 1]);
    expect(sizes(batchesOf(pg, mixed))).toEqual([5]);
  });
});
