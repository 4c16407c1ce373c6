import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, CrudRepository } from '@crudsmith/core';
import { openDatabase, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';

// Two repositories with the same key stand for two processes of one deployment: what one
// signs, the other accepts. The key may come from a function, for apps that learn their
// secret only after startup (a file or a database row).
describe('cursorKey', () => {
  let db: TestDatabase;
  const idsOf = (page: { data: Record<string, unknown>[] }) => page.data.map((row) => row.id);

  beforeAll(async () => {
    db = await openDatabase('sqlite');
    await createSchema(db.knex);
    const items = new CrudRepository(Item);
    for (let i = 1; i <= 5; i++) await items.create(db.knex, { name: `item-${i}` });
  });
  afterAll(() => db?.destroy());

  it('a provider signs as the key it answers, and is asked once', async () => {
    let asked = 0;
    const lazy = new CrudRepository(Item, {
      cursorKey: async () => {
        asked += 1;
        return 'the shared cursor key';
      },
    });
    const plain = new CrudRepository(Item, { cursorKey: 'the shared cursor key' });
    const first = await lazy.getMultiByCursor(db.knex, { limit: 2 });
    const second = await plain.getMultiByCursor(db.knex, { cursor: first.next_cursor, limit: 2 });
    expect(idsOf(second)).toEqual([3, 4]);
    const third = await lazy.getMultiByCursor(db.knex, { cursor: second.next_cursor, limit: 2 });
    expect(idsOf(third)).toEqual([5]);
    expect(asked).toBe(1);
  });

  it('refuses (400) a cursor signed with another key, or with a process key', async () => {
    const ours = new CrudRepository(Item, { cursorKey: () => Buffer.from('our key, as bytes') });
    for (const other of [new CrudRepository(Item, { cursorKey: 'their key' }), new CrudRepository(Item)]) {
      const { next_cursor } = await other.getMultiByCursor(db.knex, { limit: 2 });
      await expect(ours.getMultiByCursor(db.knex, { cursor: next_cursor })).rejects.toBeInstanceOf(BadRequestError);
    }
  });

  it('asks a failing provider again at the next cursor, and refuses an empty key', async () => {
    let asked = 0;
    const flaky = new CrudRepository(Item, {
      cursorKey: async () => {
        asked += 1;
        if (asked === 1) throw new Error('the secret is not there yet');
        return 'found at last';
      },
    });
    await expect(flaky.getMultiByCursor(db.knex, { limit: 2 })).rejects.toThrow('the secret is not there yet');
    expect(idsOf(await flaky.getMultiByCursor(db.knex, { limit: 2 }))).toEqual([1, 2]);
    expect(asked).toBe(2);
    // An empty key signs with nothing secret: anyone could forge a cursor.
    const empty = new CrudRepository(Item, { cursorKey: () => '' });
    await expect(empty.getMultiByCursor(db.knex, { limit: 2 })).rejects.toThrow(/no key/);
  });
});
