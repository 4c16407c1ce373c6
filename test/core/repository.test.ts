import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConfigurationError,
  CrudRepository,
  DuplicateValueError,
  MultipleRowsError,
  NotFoundError,
  ValidationError,
} from '@crudsmith/core';
import { IsOptional, IsString } from 'class-validator';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Author, createSchema, Item } from '../fixtures/models';
import { seedItems } from '../fixtures/seed';

class ItemName {
  @IsString() name!: string;
  @IsOptional() @IsString() category?: string;
}

describe.each(ENGINES)('CrudRepository on %s', (engine) => {
  let db: TestDatabase;
  let items: CrudRepository<typeof Item>;

  beforeEach(async () => {
    await db?.destroy();
    db = await openDatabase(engine);
    await createSchema(db.knex);
    items = await seedItems(db.knex);
  });
  afterAll(() => db?.destroy());

  describe('create', () => {
    it('answers the row as stored, in one shape on every engine', async () => {
      const row = await items.create(db.knex, { name: 'Zeta', price: '12.50', last_sold: '2024-05-01T10:00:00.123Z' });
      expect(row).toMatchObject({
        id: 7,
        name: 'Zeta',
        price: 12.5,
        is_deleted: false,
        description: null,
        deleted_at: null,
      });
      expect(row.last_sold).toEqual(new Date('2024-05-01T10:00:00.123Z'));
      expect(row.created_at).toBeInstanceOf(Date);
      expect(await items.get(db.knex, { id: 7 })).toEqual(row);
    });

    it('rejects unknown fields and unreadable values with one 422 listing them', async () => {
      const error = await items.create(db.knex, { name: 'x', colour: 'red', price: 'cheap' }).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.detail).toEqual([
        { loc: ['body', 'colour'], msg: "Unknown field 'colour' for model Item", type: 'extra_forbidden' },
        { loc: ['body', 'price'], msg: 'Input should be a valid number', type: 'float_parsing' },
      ]);
    });

    it('turns a unique violation into DuplicateValueError (409) and writes nothing', async () => {
      const error = await items.create(db.knex, { name: 'Alpha' }).catch((e) => e);
      expect(error).toBeInstanceOf(DuplicateValueError);
      expect(error.status).toBe(409);
      expect(await items.count(db.knex, { name: 'Alpha' })).toBe(1);
    });

    it('answers only the schema fields with schemaToSelect, and instances with returnAsModel', async () => {
      expect(await items.create(db.knex, { name: 'Eta', category: 'x' }, { schemaToSelect: ItemName })).toEqual({
        name: 'Eta',
        category: 'x',
      });
      const model = await items.get(db.knex, { name: 'Eta' }, { schemaToSelect: ItemName, returnAsModel: true });
      expect(model).toBeInstanceOf(ItemName);
      expect(await items.get(db.knex, { name: 'Eta' }, { returnAsModel: true })).toBeInstanceOf(Item);
    });
  });

  describe('get, exists, count, select', () => {
    it('get answers the first match or null', async () => {
      expect((await items.get(db.knex, { id: 3 }))?.name).toBe('Gamma');
      expect(await items.get(db.knex, { id: 99 })).toBeNull();
    });

    it('exists and count follow the filters', async () => {
      expect(await items.exists(db.knex, { category: 'tools' })).toBe(true);
      expect(await items.exists(db.knex, { category: 'toys' })).toBe(false);
      expect(await items.count(db.knex, { category: 'food' })).toBe(2);
      expect(await items.count(db.knex)).toBe(6);
    });

    it('select answers rows without a count', async () => {
      const rows = await items.select(db.knex, { category: 'tools' }, { sortColumns: 'name' });
      expect(rows.map((r) => r.name)).toEqual(['Alpha', 'beta']);
    });

    it('fails at once on a schema field that is not a column', async () => {
      await expect(items.get(db.knex, {}, { schemaToSelect: ['name', 'colour'] })).rejects.toBeInstanceOf(
        ConfigurationError,
      );
    });
  });

  describe('update', () => {
    it('changes the row and sets updatedAtColumn', async () => {
      expect(await items.update(db.knex, { price: 11 }, { filters: { id: 1 } })).toBeNull();
      const row = await items.get(db.knex, { id: 1 });
      expect(row?.price).toBe(11);
      expect(row?.updated_at).toBeInstanceOf(Date);
    });

    it('answers the updated row with schemaToSelect', async () => {
      expect(
        await items.update(db.knex, { name: 'Alef' }, { filters: { id: 1 }, schemaToSelect: ['id', 'name'] }),
      ).toEqual({ id: 1, name: 'Alef' });
    });

    it('is a 404 for a missing or soft-deleted row', async () => {
      await expect(items.update(db.knex, { price: 1 }, { filters: { id: 99 } })).rejects.toBeInstanceOf(NotFoundError);
      await items.delete(db.knex, { id: 2 });
      await expect(items.update(db.knex, { price: 1 }, { filters: { id: 2 } })).rejects.toThrow('Item not found');
    });

    it('refuses several matches unless allowMultiple', async () => {
      await expect(items.update(db.knex, { price: 1 }, { filters: { category: 'tools' } })).rejects.toBeInstanceOf(
        BadRequestError,
      );
      expect(await items.count(db.knex, { price: 1 })).toBe(0);
      await items.update(db.knex, { price: 1 }, { filters: { category: 'tools' }, allowMultiple: true });
      expect(await items.count(db.knex, { price: 1 })).toBe(2);
    });

    it('a duplicate is a 409 and leaves the row unchanged', async () => {
      await expect(items.update(db.knex, { name: 'Gamma' }, { filters: { id: 1 } })).rejects.toBeInstanceOf(
        DuplicateValueError,
      );
      expect((await items.get(db.knex, { id: 1 }))?.name).toBe('Alpha');
    });
  });

  describe('delete and dbDelete', () => {
    it('soft-deletes when the model has the flag: hidden from reads, kept in the table', async () => {
      expect(await items.delete(db.knex, { id: 1 })).toBe(1);
      expect(await items.get(db.knex, { id: 1 })).toBeNull();
      expect(await items.count(db.knex)).toBe(5);
      const stored = await items.get(db.knex, { id: 1 }, { includeDeleted: true });
      expect(stored).toMatchObject({ is_deleted: true });
      expect(stored?.deleted_at).toBeInstanceOf(Date);
      await expect(items.delete(db.knex, { id: 1 })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('dbDelete removes a row for good, soft-deleted or not', async () => {
      await items.delete(db.knex, { id: 1 });
      expect(await items.dbDelete(db.knex, { id: 1 })).toBe(1);
      expect(await items.get(db.knex, { id: 1 }, { includeDeleted: true })).toBeNull();
      await expect(items.dbDelete(db.knex, { id: 1 })).rejects.toThrow('Item not found');
    });

    it('hard-deletes when the model has no flag column', async () => {
      const authors = new CrudRepository(Author, { isDeletedColumn: 'archived' });
      await authors.create(db.knex, { name: 'Dee', email: 'dee@example.com', is_deleted: false });
      expect(authors.softDelete).toBe(false);
      expect(await authors.delete(db.knex, { name: 'Dee' })).toBe(1);
      expect(Number((await db.knex('authors').count({ n: '*' }))[0].n)).toBe(0);
    });

    it('deleteReturning answers the row as the soft or hard delete left it', async () => {
      expect(await items.deleteReturning(db.knex, { id: 2 })).toMatchObject({ id: 2, is_deleted: true });
      expect(await items.deleteReturning(db.knex, { id: 2 }, { hard: true })).toMatchObject({ id: 2 });
      expect(await items.get(db.knex, { id: 2 }, { includeDeleted: true })).toBeNull();
      await expect(items.deleteReturning(db.knex, { id: 2 })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('restore through its transaction (filters that do not name the key) still checks unchanged', async () => {
      const row = (await items.get(db.knex, { id: 1 }))!;
      await items.delete(db.knex, { id: 1 });
      const byName = { name: row.name };
      await expect(items.restore(db.knex, byName, { unchanged: { price: -1 } })).rejects.toBeInstanceOf(NotFoundError);
      expect(await items.get(db.knex, { id: 1 })).toBeNull();
      expect(await items.restore(db.knex, byName, { unchanged: { price: row.price } })).toMatchObject({ id: 1 });
    });

    it('custom isDeletedColumn and deletedAtColumn are honoured', async () => {
      const custom = new CrudRepository(Item, { isDeletedColumn: 'is_deleted', deletedAtColumn: 'updated_at' });
      await custom.delete(db.knex, { id: 3 });
      const row = await custom.get(db.knex, { id: 3 }, { includeDeleted: true });
      expect(row?.updated_at).toBeInstanceOf(Date);
      expect(row?.deleted_at).toBeNull();
    });
  });

  describe('guards against writing everything', () => {
    it('an update, delete or dbDelete without a filter throws, with allowMultiple too, and acts on nothing', async () => {
      for (const call of [
        () => items.update(db.knex, { description: 'all' }, { filters: {}, allowMultiple: true }),
        () => items.update(db.knex, { description: 'all' }, { filters: { id: undefined } }),
        () => items.dbDelete(db.knex, {}),
        () => items.dbDelete(db.knex, {}, { allowMultiple: true }),
        () => items.delete(db.knex, {}, { allowMultiple: true }),
        () => items.delete(db.knex, { id: undefined }),
      ])
        await expect(call()).rejects.toThrow(/without a filter would act on every row: pass \{ all: true \}/);
      expect(await items.count(db.knex, {}, { includeDeleted: true })).toBe(6);
      expect(await items.count(db.knex)).toBe(6);
      expect(await items.count(db.knex, { description: 'all' }, { includeDeleted: true })).toBe(0);
    });

    it('updates or deletes every row when the caller says all: true', async () => {
      await items.update(db.knex, { description: 'all' }, { filters: {}, all: true, allowMultiple: true });
      expect(await items.count(db.knex, { description: 'all' })).toBe(6);
      expect(await items.delete(db.knex, {}, { all: true, allowMultiple: true })).toBe(6);
      expect(await items.count(db.knex)).toBe(0);
      expect(await items.dbDelete(db.knex, {}, { all: true, allowMultiple: true })).toBe(6);
      expect(await items.count(db.knex, {}, { includeDeleted: true })).toBe(0);
    });

    it('a soft delete writes the deletion time it is given, not the current time', async () => {
      const at = new Date('2020-01-02T03:04:05.000Z');
      await items.delete(db.knex, { id: 2 }, { values: { deleted_at: at } });
      expect((await items.get(db.knex, { id: 2 }, { includeDeleted: true }))?.deleted_at).toEqual(at);
    });
  });

  describe('get with oneOrNone', () => {
    it('answers the one row, or null, and throws MultipleRowsError (400) when several match', async () => {
      expect(await items.get(db.knex, { name: 'Alpha' }, { oneOrNone: true })).toMatchObject({ id: 1 });
      expect(await items.get(db.knex, { name: 'Nobody' }, { oneOrNone: true })).toBeNull();
      const error = await items.get(db.knex, { category: 'tools' }, { oneOrNone: true }).catch((e) => e);
      expect(error).toBeInstanceOf(MultipleRowsError);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.status).toBe(400);
      expect(await items.get(db.knex, { category: 'tools' })).toMatchObject({ id: 1 });
    });
  });

  describe('join options', () => {
    it('joinModel with joinsConfig, and an unknown joinType, are configuration errors naming them', async () => {
      const authors = new CrudRepository(Author);
      const both = authors.get(db.knex, { id: 1 }, { joinModel: 'books', joinsConfig: [{ relation: 'awards' }] });
      await expect(both).rejects.toThrow(/joinModel and joinsConfig/);
      await expect(both).rejects.toBeInstanceOf(ConfigurationError);
      const outer = authors.get(db.knex, { id: 1 }, { joinModel: 'books', joinType: 'outer' as 'left' });
      await expect(outer).rejects.toThrow(/Unknown joinType 'outer'/);
      await expect(
        authors.getMulti(db.knex, { joinsConfig: [{ relation: 'books', joinType: 'full' as 'left' }] }),
      ).rejects.toThrow(/Unknown joinType 'full'/);
    });
  });

  describe('writes are atomic', () => {
    it('a failing multi-row update changes nothing', async () => {
      const error = await items
        .update(db.knex, { name: 'Same' }, { filters: { category: 'tools' }, allowMultiple: true })
        .catch((e) => e);
      expect(error).toBeInstanceOf(DuplicateValueError);
      expect(await items.count(db.knex, { name: 'Same' })).toBe(0);
    });
  });
});
