import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, CrudRepository, ValidationError } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';

// 25 items: prices repeat (so ties need the primary key) and some are NULL.
const PRICES = Array.from({ length: 25 }, (_, i) => (i % 7 === 3 ? null : (i % 5) * 10));

describe.each(ENGINES)('pagination and order on %s', (engine) => {
  let db: TestDatabase;
  let items: CrudRepository<typeof Item>;

  beforeAll(async () => {
    db = await openDatabase(engine);
    await createSchema(db.knex);
    items = new CrudRepository(Item);
    for (const [i, price] of PRICES.entries()) {
      await items.create(db.knex, {
        name: `item-${String(i + 1).padStart(2, '0')}`,
        price,
        category: i % 2 ? 'odd' : 'even',
      });
    }
    await items.delete(db.knex, { id: 25 });
  });
  afterAll(() => db?.destroy());

  const expectedOrder = (order: 'asc' | 'desc') => {
    const rows = PRICES.slice(0, 24).map((price, i) => ({ id: i + 1, price }));
    // NULLs first ascending, last descending; the primary key breaks ties in the same direction.
    const key = (p: number | null) => (p === null ? -Infinity : p);
    const sign = order === 'asc' ? 1 : -1;
    return rows.sort((a, b) => sign * (key(a.price) - key(b.price) || a.id - b.id)).map((r) => r.id);
  };

  it('offset and limit window the rows; total_count counts all matches', async () => {
    const page = await items.getMulti(db.knex, { offset: 5, limit: 5 });
    expect(page.data.map((r) => r.id)).toEqual([6, 7, 8, 9, 10]);
    expect(page.total_count).toBe(24);
  });

  it('returnTotalCount false leaves the count out', async () => {
    expect(await items.getMulti(db.knex, { limit: 1, returnTotalCount: false })).toEqual({
      data: [expect.objectContaining({ id: 1 })],
    });
  });

  it('sorting by a column with ties and NULLs is deterministic and offset pages neither overlap nor skip', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const seen: number[] = [];
      for (let offset = 0; offset < 24; offset += 5) {
        const page = await items.getMulti(db.knex, { offset, limit: 5, sortColumns: ['price'], sortOrders: [order] });
        seen.push(...page.data.map((r) => r.id as number));
      }
      expect(seen).toEqual(expectedOrder(order));
    }
  });

  it('combines sort with filters', async () => {
    const page = await items.getMulti(db.knex, {
      filters: { category: 'odd', price__gte: 30 },
      sortColumns: ['price', 'id'],
      sortOrders: ['desc', 'desc'],
    });
    expect(page.data.map((r) => [r.price, r.id])).toEqual([
      [40, 20],
      [40, 10],
      [30, 24],
      [30, 14],
    ]);
    expect(page.total_count).toBe(4);
  });

  it('rejects an unknown sort column or order by name', async () => {
    await expect(items.getMulti(db.knex, { sortColumns: ['colour'] })).rejects.toThrow(
      "Invalid sort column 'colour': not found in model Item",
    );
    await expect(items.getMulti(db.knex, { sortColumns: ['price'], sortOrders: ['up'] })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });

  it('rejects a negative offset or a limit below 1 with 422', async () => {
    await expect(items.getMulti(db.knex, { offset: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(items.getMulti(db.knex, { limit: 0 })).rejects.toBeInstanceOf(ValidationError);
  });

  describe('getMultiByCursor', () => {
    const walk = async (options: Parameters<typeof items.getMultiByCursor>[1]) => {
      const ids: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await items.getMultiByCursor(db.knex, { ...options, cursor });
        ids.push(...page.data.map((r) => r.id as number));
        cursor = page.next_cursor;
        pages++;
      } while (cursor && pages < 50);
      return { ids, pages };
    };

    it('walks the id order to the end; next_cursor is null exactly on the last page', async () => {
      const { ids, pages } = await walk({ limit: 8 });
      expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      expect(pages).toBe(3);
      const last = await items.getMultiByCursor(db.knex, { limit: 24 });
      expect(last.next_cursor).toBeNull();
    });

    it('walks a nullable column with ties, in both directions, like the offset order', async () => {
      for (const order of ['asc', 'desc'] as const) {
        const { ids } = await walk({ limit: 5, sortColumns: ['price'], sortOrders: [order] });
        expect(ids).toEqual(expectedOrder(order));
      }
    });

    it('takes sortColumn and sortOrder', async () => {
      const { ids } = await walk({ limit: 10, sortColumn: 'id', sortOrder: 'desc' });
      expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => 24 - i));
    });

    it('honours filters on every page', async () => {
      const { ids } = await walk({ limit: 3, filters: { category: 'even' } });
      expect(ids).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23]);
    });

    it('defaults to 100 rows and refuses more than 1000', async () => {
      expect((await items.getMultiByCursor(db.knex)).data).toHaveLength(24);
      await expect(items.getMultiByCursor(db.knex, { limit: 1001 })).rejects.toBeInstanceOf(ValidationError);
    });

    it('refuses a cursor it did not issue: malformed, hand-made, or of another sort', async () => {
      const first = await items.getMultiByCursor(db.knex, { limit: 2 });
      const handMade = `${Buffer.from(JSON.stringify([2])).toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`;
      for (const cursor of ['garbage', handMade, `${first.next_cursor}x`]) {
        await expect(items.getMultiByCursor(db.knex, { cursor })).rejects.toThrow('Invalid cursor');
      }
      await expect(
        items.getMultiByCursor(db.knex, { cursor: first.next_cursor, sortColumns: ['price'] }),
      ).rejects.toBeInstanceOf(BadRequestError);
    });
  });
});
