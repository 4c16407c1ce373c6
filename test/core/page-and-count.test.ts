import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CrudRepository } from '@crudsmith/core';
import { CATALOGUE_RETRY_MS } from '../../core/src/data/list-order';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';

// 25 items, odd and even: prices repeat (ties need the primary key) and some are NULL; the
// last is soft-deleted.
const PRICES = Array.from({ length: 25 }, (_, i) => (i % 7 === 3 ? null : (i % 5) * 10));
const LIVE = PRICES.slice(0, 24).map((price, i) => ({ id: i + 1, price, category: i % 2 ? 'odd' : 'even' }));

// The order lists promise: NULLs first ascending and last descending, ties by id in the same direction.
function expected(order: 'asc' | 'desc', keep: (row: (typeof LIVE)[number]) => boolean = () => true): number[] {
  const key = (price: number | null) => (price === null ? -Infinity : price);
  const sign = order === 'asc' ? 1 : -1;
  return LIVE.filter(keep)
    .sort((a, b) => sign * (key(a.price) - key(b.price) || a.id - b.id))
    .map((row) => row.id);
}

async function seeded(engine: (typeof ENGINES)[number], index?: 'category-price' | 'plain'): Promise<TestDatabase> {
  const db = await openDatabase(engine);
  await createSchema(db.knex);
  if (index) {
    const nulls = engine === 'postgres' && index === 'category-price' ? ' NULLS FIRST' : '';
    await db.knex.raw(`CREATE INDEX items_category_price ON items (category, is_deleted, price${nulls})`);
  }
  const items = new CrudRepository(Item);
  for (const [i, price] of PRICES.entries())
    await items.create(db.knex, { name: `item-${i + 1}`, price, category: i % 2 ? 'odd' : 'even' });
  await items.delete(db.knex, { id: 25 });
  return db;
}

describe.each(ENGINES)('a counted page on %s', (engine) => {
  // MariaDB reads a CTE once per mention, so there a page and its count stay two statements.
  const onePass = engine === 'mysql' ? 2 : 1;
  const items = new CrudRepository(Item);
  let plain: TestDatabase;
  let indexed: TestDatabase;
  let plainIndex: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    [plain, indexed, plainIndex] = [
      await seeded(engine),
      await seeded(engine, 'category-price'),
      await seeded(engine, 'plain'),
    ];
    for (const db of [plain, indexed, plainIndex])
      db.knex.on('query', (query: { sql: string }) => statements.push(query.sql));
    // The first sorted list of each database reads its indexes.
    for (const db of [plain, indexed, plainIndex]) await items.getMulti(db.knex, { sortColumns: ['price'], limit: 1 });
  });
  afterAll(async () => {
    await plain?.destroy();
    await indexed?.destroy();
    await plainIndex?.destroy();
  });

  async function counted(db: TestDatabase, options: Parameters<typeof items.getMulti>[1]) {
    statements.length = 0;
    const page = await items.getMulti(db.knex, options);
    return { ids: page.data.map((row) => row.id), total: page.total_count, statements: statements.length };
  }

  it('reads a page ordered by an unindexed column and its count in one statement, the same rows in both directions', async () => {
    for (const order of ['asc', 'desc'] as const) {
      for (const offset of [0, 5, 20]) {
        const page = await counted(plain, { sortColumns: ['price'], sortOrders: [order], offset, limit: 5 });
        expect(page).toEqual({ ids: expected(order).slice(offset, offset + 5), total: 24, statements: onePass });
      }
    }
  });

  it('counts every filtered row, soft-deleted ones left out, with the page', async () => {
    const page = await counted(plain, {
      filters: { category: 'odd', price__gte: 10 },
      sortColumns: ['price', 'name'],
      sortOrders: ['desc', 'asc'],
      offset: 2,
      limit: 4,
    });
    const matching = expected('desc', (row) => row.category === 'odd' && (row.price ?? -1) >= 10);
    // Ties on price go by name here, and `item-N` names sort as text.
    const byName = LIVE.filter((row) => matching.includes(row.id)).sort(
      (a, b) => (b.price ?? 0) - (a.price ?? 0) || `item-${a.id}`.localeCompare(`item-${b.id}`),
    );
    expect(page).toEqual({ ids: byName.slice(2, 6).map((row) => row.id), total: matching.length, statements: onePass });
  });

  it('still answers the total of a page past the last row, reading the count alone', async () => {
    const page = await counted(plain, { sortColumns: ['price'], sortOrders: ['desc'], offset: 30, limit: 5 });
    expect(page).toEqual({ ids: [], total: 24, statements: 2 });
    const none = await counted(plain, { filters: { category: 'none' }, sortColumns: ['price'], limit: 5 });
    expect(none).toEqual({ ids: [], total: 0, statements: onePass });
  });

  it('keeps two statements where an index orders the column after the equality filters', async () => {
    const page = await counted(indexed, {
      filters: { category: 'even' },
      sortColumns: ['price'],
      sortOrders: ['desc'],
      offset: 3,
      limit: 4,
    });
    const even = expected('desc', (row) => row.category === 'even');
    expect(page).toEqual({ ids: even.slice(3, 7), total: even.length, statements: 2 });
    // Without the category fixed, that index does not order price: one pass again.
    const all = await counted(indexed, { sortColumns: ['price'], sortOrders: ['desc'], limit: 4 });
    expect(all).toEqual({ ids: expected('desc').slice(0, 4), total: 24, statements: onePass });
  });

  it('lets a plain index order a page whose filter keeps NULLs out, on PostgreSQL too', async () => {
    // (category, is_deleted, price) without NULLS FIRST: PostgreSQL reads it backwards with
    // NULLs first, which no row of `price__gte=10` is, so the page leaves the NULL order out.
    const sqls: string[] = [];
    const record = (query: { sql: string }) => sqls.push(query.sql);
    plainIndex.knex.on('query', record);
    const filters = { category: 'even', price__gte: 10 };
    const page = await counted(plainIndex, {
      filters,
      sortColumns: ['price'],
      sortOrders: ['desc'],
      offset: 1,
      limit: 3,
    });
    plainIndex.knex.removeListener('query', record);
    const matching = expected('desc', (row) => row.category === 'even' && (row.price ?? -1) >= 10);
    expect(page).toEqual({ ids: matching.slice(1, 4), total: matching.length, statements: 2 });
    expect(sqls.some((sql) => /nulls (first|last)/i.test(sql))).toBe(false);
    // Without that filter the NULLs are in the list, and their order stays.
    const all = await counted(plainIndex, {
      filters: { category: 'even' },
      sortColumns: ['price'],
      sortOrders: ['desc'],
    });
    const even = expected('desc', (row) => row.category === 'even');
    expect(all).toEqual({ ids: even, total: even.length, statements: engine === 'postgres' ? 1 : 2 });
  });

  it('keeps two statements in a transaction, one after the other on its one connection, and by primary key', async () => {
    statements.length = 0;
    // Each statement answers before the next starts: `open` never passes one (counted
    // after BEGIN, which knex reports without a response).
    let open = 0;
    let most = 0;
    const started = () => (most = Math.max(most, ++open));
    const answered = () => open--;
    const inTransaction = await plain.knex.transaction(async (trx) => {
      plain.knex.on('query', started).on('query-response', answered);
      return items.getMulti(trx, { sortColumns: ['price'], offset: 5, limit: 5 });
    });
    plain.knex.removeListener('query', started).removeListener('query-response', answered);
    expect(most).toBe(1);
    expect(inTransaction.data.map((row) => row.id)).toEqual(expected('asc').slice(5, 10));
    expect(inTransaction.total_count).toBe(24);
    expect(statements.filter((sql) => /count\(\*\)/i.test(sql))).toHaveLength(1);
    const byKey = await counted(plain, { offset: 5, limit: 5 });
    expect(byKey).toEqual({ ids: [6, 7, 8, 9, 10], total: 24, statements: 2 });
  });
});

describe('a counted page on SQLite', () => {
  const items = new CrudRepository(Item);
  let db: TestDatabase;
  beforeAll(async () => {
    db = await seeded('sqlite');
    await items.getMulti(db.knex, { sortColumns: ['price'], limit: 1 }); // reads the indexes
  });
  afterAll(() => db?.destroy());

  it('reads the matching rows once, where SQLite would read them again for each mention of the CTE', async () => {
    const seen: { sql: string; bindings: unknown[] }[] = [];
    const record = (query: { sql: string; bindings: unknown[] }) => seen.push(query);
    db.knex.on('query', record);
    await items.getMulti(db.knex, { sortColumns: ['price'], sortOrders: ['desc'], offset: 5, limit: 5 });
    db.knex.removeListener('query', record);
    expect(seen).toHaveLength(1);
    const plan = (await db.knex.raw(`explain query plan ${seen[0].sql}`, seen[0].bindings as Knex.Value[])) as {
      detail: string;
    }[];
    const details = plan.map((step) => step.detail);
    expect(details.filter((detail) => /^(SCAN|SEARCH) items\b(?!.*PRIMARY KEY)/.test(detail))).toHaveLength(1);
    expect(details.some((detail) => detail.startsWith('MATERIALIZE'))).toBe(true);
  });
});

describe('a database whose indexes could not be read when its first list came', () => {
  const items = new CrudRepository(Item);
  const dir = mkdtempSync(join(tmpdir(), 'crudsmith-catalogue-'));
  let reachable = false;
  // While it is unreachable, each new connection asks for its settings again (`expirationChecker`): a file in a folder that does not exist
  // fails to open, as a database that is down would.
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: () =>
      reachable
        ? { filename: join(dir, 'items.sqlite') }
        : { filename: join(dir, 'missing', 'items.sqlite'), expirationChecker: () => true },
    useNullAsDefault: true,
    pool: { min: 0, max: 1 },
  });
  const statements: string[] = [];
  beforeAll(async () => {
    const setup = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'items.sqlite') },
      useNullAsDefault: true,
    });
    await createSchema(setup);
    for (const [i, price] of PRICES.entries())
      await items.create(setup, { name: `item-${i + 1}`, price, category: 'even' });
    await setup.destroy();
    knex.on('query', (query: { sql: string }) => statements.push(query.sql));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async () => {
    statements.length = 0;
    const page = await items.getMulti(knex, { sortColumns: ['price'], limit: 5 });
    return { total: page.total_count, statements: statements.length };
  };

  it('lists in two statements until a later list reads them, then in one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await expect(list()).rejects.toThrow();
    reachable = true;
    // A statement of the failed list still waiting for a connection runs first (one connection, served in turn).
    await knex.raw('select 1');
    expect(await list()).toEqual({ total: 25, statements: 2 });
    vi.setSystemTime(Date.now() + CATALOGUE_RETRY_MS - 1000);
    expect(await list()).toEqual({ total: 25, statements: 2 });
    vi.setSystemTime(Date.now() + 2000);
    // This list reads the catalogue first (not counted: its statements are not the list's), then pages in one.
    expect((await list()).total).toBe(25);
    expect(await list()).toEqual({ total: 25, statements: 1 });
  });
});
