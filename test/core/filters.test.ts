import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, CrudRepository, ValidationError } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Book, createSchema, Item } from '../fixtures/models';
import { seedItems, seedLibrary } from '../fixtures/seed';

// Every filter operator must mean the same on SQLite, PostgreSQL and MariaDB.
describe.each(ENGINES)('filter operators on %s', (engine) => {
  let db: TestDatabase;
  let items: CrudRepository<typeof Item>;
  const names = async (filters: Record<string, unknown>) =>
    (await items.getMulti(db.knex, { filters, limit: 100 })).data.map((r) => r.name);

  beforeAll(async () => {
    db = await openDatabase(engine);
    await createSchema(db.knex);
    items = await seedItems(db.knex);
    await seedLibrary(db.knex);
  });
  afterAll(() => db?.destroy());

  it('eq matches exactly, case and accents included', async () => {
    expect(await names({ name: 'Alpha' })).toEqual(['Alpha']);
    expect(await names({ name__eq: 'alpha' })).toEqual([]);
    expect(await names({ name: 'Eclair' })).toEqual([]);
    expect(await names({ category: null })).toEqual(['Epsilon']);
  });

  it('ne excludes the value (and NULL, as SQL does)', async () => {
    expect(await names({ category__ne: 'tools' })).toEqual(['Gamma', 'Éclair', 'delta_x']);
    expect(await names({ category__ne: null })).toHaveLength(5);
  });

  it('gt, gte, lt, lte compare numbers', async () => {
    expect(await names({ price__gt: 10 })).toEqual(['beta', 'Epsilon']);
    expect(await names({ price__gte: 10 })).toEqual(['Alpha', 'beta', 'Epsilon']);
    expect(await names({ price__lt: '5.25' })).toEqual(['Éclair']);
    expect(await names({ price__lte: 5.25 })).toEqual(['Gamma', 'Éclair']);
  });

  it('compares datetimes given as ISO strings', async () => {
    expect(await names({ last_sold__gte: '2024-02-01T00:00:00Z' })).toEqual(['Gamma', 'Éclair']);
    expect(await names({ last_sold__lt: '2024-01-01' })).toEqual(['Epsilon']);
  });

  it('is and is_not test NULL and booleans', async () => {
    expect(await names({ last_sold__is: null })).toEqual(['beta', 'delta_x']);
    expect(await names({ last_sold__is_not: 'null' })).toEqual(['Alpha', 'Gamma', 'Éclair', 'Epsilon']);
    expect(await names({ is_deleted__is: false })).toHaveLength(6);
    expect(await names({ is_deleted__is_not: false })).toEqual([]);
  });

  it('like and notlike are case-sensitive patterns', async () => {
    expect(await names({ name__like: 'A%' })).toEqual(['Alpha']);
    expect(await names({ name__like: 'a%' })).toEqual([]);
    expect(await names({ name__like: '_eta' })).toEqual(['beta']);
    expect(await names({ name__notlike: '%a%' })).toEqual(['Epsilon']);
  });

  it('like honours backslash escapes for literal % and _', async () => {
    expect(await names({ description__like: '%100\\%%' })).toEqual(['Éclair']);
    expect(await names({ name__like: 'delta\\_%' })).toEqual(['delta_x']);
  });

  it('ilike and notilike fold case, Unicode included', async () => {
    expect(await names({ name__ilike: 'a%' })).toEqual(['Alpha']);
    expect(await names({ name__ilike: 'ÉCLAIR' })).toEqual(['Éclair']);
    expect(await names({ name__ilike: 'eclair' })).toEqual([]);
    expect(await names({ name__notilike: '%A%' })).toEqual(['Epsilon']);
  });

  it('startswith, endswith and contains match literally and case-sensitively', async () => {
    expect(await names({ name__startswith: 'G' })).toEqual(['Gamma']);
    expect(await names({ name__startswith: 'g' })).toEqual([]);
    expect(await names({ name__endswith: 'a' })).toEqual(['Alpha', 'beta', 'Gamma']);
    expect(await names({ description__contains: 'percent%' })).toEqual(['delta_x']);
    expect(await names({ description__contains: '_' })).toEqual(['delta_x']);
    expect(await names({ name__contains: '*' })).toEqual([]);
  });

  it('between includes both ends; in and not_in take lists or comma text', async () => {
    expect(await names({ price__between: [5.25, 10] })).toEqual(['Alpha', 'Gamma']);
    expect(await names({ price__between: '5.25,10' })).toEqual(['Alpha', 'Gamma']);
    expect(await names({ id__in: '1,3,99' })).toEqual(['Alpha', 'Gamma']);
    expect(await names({ id__in: [] })).toEqual([]);
    expect(await names({ category__not_in: ['tools', 'food'] })).toEqual(['Gamma']);
  });

  it("match uses the engine's full-text search, or says clearly it cannot", async () => {
    if (engine === 'sqlite') {
      await expect(names({ description__match: 'hammer' })).rejects.toThrow(/full-text search/);
    } else {
      expect(await names({ description__match: 'hammer' })).toEqual(['Alpha']);
    }
  });

  it('match reads words only: operator characters never reach the engine, and text without a word matches nothing', async () => {
    if (engine === 'sqlite') return;
    for (const text of ['*', '+', '()', '"', '~*@', '  '])
      expect(await names({ description__match: text }), text).toEqual([]);
    expect(await names({ description__match: 'hammer*' })).toEqual(['Alpha']);
    expect(await names({ description__match: '+hammer -nails' })).toEqual(['Alpha']);
  });

  it('or and not fan a list out to one condition per value', async () => {
    expect(await names({ name__or: { like: ['A%', 'E%'] } })).toEqual(['Alpha', 'Epsilon']);
    expect(await names({ name__not: { like: ['A%', 'E%'] } })).toEqual(['beta', 'Gamma', 'Éclair', 'delta_x']);
    expect(await names({ name__or: { contains: ['mm', 'lai'] } })).toEqual(['Gamma', 'Éclair']);
    expect(await names({ name__not: { contains: ['a', 'x'] } })).toEqual(['Epsilon']);
    expect(await names({ id__or: { eq: [1, 6] } })).toEqual(['Alpha', 'Epsilon']);
    expect(
      await names({
        id__or: {
          in: [
            [1, 2],
            [5, 6],
          ],
        },
      }),
    ).toEqual(['Alpha', 'beta', 'delta_x', 'Epsilon']);
    expect(
      await names({
        id__not: {
          in: [
            [1, 2],
            [5, 6],
          ],
        },
      }),
    ).toEqual(['Gamma', 'Éclair']);
    expect(await names({ id__or: { in: [3, 4], eq: [1] } })).toEqual(['Alpha', 'Gamma', 'Éclair']);
    expect(
      await names({
        price__or: {
          between: [
            [3, 4],
            [90, 100],
          ],
        },
      }),
    ).toEqual(['Éclair', 'Epsilon']);
    await expect(names({ id__or: { in: [[1], 2] } })).rejects.toBeInstanceOf(ValidationError);
    await expect(names({ id__or: { eq: [] } })).rejects.toBeInstanceOf(ValidationError);
  });

  it('or and not combine operators on one column', async () => {
    expect(await names({ price__or: { lt: 4, gt: 50 } })).toEqual(['Éclair', 'Epsilon']);
    expect(await names({ category__not: { eq: 'tools', is: null } })).toEqual(['Gamma', 'Éclair', 'delta_x']);
  });

  it('_or combines conditions across columns', async () => {
    expect(await names({ _or: { name: 'Alpha', category: 'garden' } })).toEqual(['Alpha', 'Gamma']);
    expect(await names({ category: 'tools', _or: { price__gt: 20, name__startswith: 'A' } })).toEqual([
      'Alpha',
      'beta',
    ]);
  });

  it('dotted keys filter through relations without repeating parents', async () => {
    const books = new CrudRepository(Book);
    const titles = async (filters: Record<string, unknown>) =>
      (await books.getMulti(db.knex, { filters })).data.map((r) => r.title);
    expect(await titles({ 'author.name': 'Ann' })).toEqual(['A1', 'A2', 'A3']);
    expect(await titles({ 'reviews.stars__gte': 4 })).toEqual(['A1', 'B1']);
    expect((await books.getMulti(db.knex, { filters: { 'reviews.stars__gte': 3 } })).total_count).toBe(2); // A1 has three such reviews, counted once
    expect(await titles({ 'tags.label': 'fiction' })).toEqual(['A1', 'B1']);
    expect(await titles({ 'author.awards.title__ilike': 'gold' })).toEqual(['A1', 'A2', 'A3']);
  });

  it('customFilters add operators', async () => {
    const custom = new CrudRepository(Item, {
      customFilters: { round: (column) => (qb, value) => void qb.whereRaw('ROUND(??) = ?', [column, Number(value)]) },
    });
    const data = (await custom.getMulti(db.knex, { filters: { price__round: 3 } })).data.map((r) => r.name);
    expect(data).toEqual(['Éclair']);
  });

  it('names an unknown column, operator or relation in a 400', async () => {
    await expect(names({ colour: 'red' })).rejects.toThrow("Invalid filter column 'colour': not found in model Item");
    await expect(names({ price__near: 3 })).rejects.toThrow("Invalid filter operator 'near' in 'price__near'");
    await expect(names({ 'maker.name': 'x' })).rejects.toThrow(/Invalid filter relation 'maker'/);
    await expect(names({ colour: 'red' })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('a text operator on a number, boolean or date column is a 400 naming it, never a driver error', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ price__like: '1%' }, 'like', 'price'],
      [{ id__ilike: '1' }, 'ilike', 'id'],
      [{ is_deleted__contains: 't' }, 'contains', 'is_deleted'],
      [{ last_sold__startswith: '2024' }, 'startswith', 'last_sold'],
      [{ price__or: { gt: 50, endswith: '5' } }, 'endswith', 'price'],
      [{ _or: { name: 'Alpha', created_at__match: '2024' } }, 'match', 'created_at'],
    ];
    for (const [filters, op, column] of cases) {
      const error = await names(filters).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, op).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).message, op).toContain(`'${op}'`);
      expect((error as BadRequestError).message, op).toContain(`'${column}'`);
    }
    expect(await names({ name__endswith: 'a', price__gt: 6 })).toEqual(['Alpha', 'beta']);
  });

  it('answers 422 for values that cannot be read as the column type', async () => {
    for (const bad of [
      { id: '1e3' },
      { id: '0x10' },
      { id: '12abc' },
      { id: '9007199254740993' },
      { price__gt: 'cheap' },
      { last_sold__gt: 'yesterday' },
    ]) {
      await expect(names(bad)).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(names({ id__in: Array.from({ length: 1001 }, (_, i) => i) })).rejects.toBeInstanceOf(ValidationError);
    await expect(names({ id: '+3' })).resolves.toEqual(['Gamma']);
  });
});
