import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, CrudRepository } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Author, Book, createSchema, Review } from '../fixtures/models';
import { seedLibrary } from '../fixtures/seed';

describe.each(ENGINES)('joins on %s', (engine) => {
  let db: TestDatabase;
  const authors = new CrudRepository(Author);
  const books = new CrudRepository(Book);
  let queries = 0;

  beforeAll(async () => {
    db = await openDatabase(engine);
    await createSchema(db.knex);
    await seedLibrary(db.knex);
    db.knex.on('query', () => queries++);
  });
  afterAll(() => db?.destroy());

  it("counts each row's related rows as <relation>_count, in the statement that reads the rows", async () => {
    const list = () =>
      authors.getMulti(db.knex, {
        relationshipCounts: ['books', 'awards'],
        schemaToSelect: ['id', 'name'],
        sortColumns: ['name'],
        sortOrders: ['desc'],
      });
    await list(); // the first list also reads the table's indexes
    const before = queries;
    const { data, total_count } = await list();
    // The rows (with their counts) and the total: in one pass where no index orders `name`
    // (PostgreSQL, SQLite), as two statements on MariaDB.
    expect(queries - before).toBe(engine === 'mysql' ? 2 : 1);
    expect(total_count).toBe(3);
    expect(data).toEqual([
      { id: 3, name: 'Cy', books_count: 0, awards_count: 0 },
      { id: 2, name: 'Bob', books_count: 1, awards_count: 0 },
      { id: 1, name: 'Ann', books_count: 3, awards_count: 2 },
    ]);
    expect(
      await books.get(db.knex, { id: 1 }, { relationshipCounts: ['reviews', 'tags'], schemaToSelect: ['title'] }),
    ).toEqual({ title: 'A1', reviews_count: 3, tags_count: 2 });
    const page = await authors.getMultiByCursor(db.knex, {
      limit: 2,
      relationshipCounts: ['books'],
      schemaToSelect: ['id'],
    });
    expect(page.data).toEqual([
      { id: 1, books_count: 3 },
      { id: 2, books_count: 1 },
    ]);
    expect(await authors.get(db.knex, { id: 1 }, { schemaToSelect: ['id'] })).toEqual({ id: 1 });
  });

  it('refuses a count of a relation the model lacks', async () => {
    await expect(authors.getMulti(db.knex, { relationshipCounts: ['reviews'] })).rejects.toThrow(
      /'reviews' is not a relation of model Author/,
    );
    await expect(authors.getMulti(db.knex, { relationshipCounts: ['reviews'] })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });

  it('nests a one-to-one relation under its name, null when absent', async () => {
    const { data } = await books.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'author', schemaToSelect: ['id', 'name'] }],
    });
    expect(data.map((b) => [b.title, b.author])).toEqual([
      ['A1', { id: 1, name: 'Ann' }],
      ['A2', { id: 1, name: 'Ann' }],
      ['A3', { id: 1, name: 'Ann' }],
      ['B1', { id: 2, name: 'Bob' }],
      ['Orphan', null],
    ]);
  });

  it('flattens a one-to-one relation with its prefix when nestJoins is false', async () => {
    const row = await books.getJoined(
      db.knex,
      { id: 4 },
      { joinModel: Author, joinPrefix: 'author_', joinSchemaToSelect: ['name', 'email'], nestJoins: false },
    );
    expect(row).toMatchObject({ title: 'B1', author_name: 'Bob', author_email: 'bob@example.com' });
    expect(row).not.toHaveProperty('author');
  });

  it('lists one-to-many rows per parent without repeating parents, and counts parents', async () => {
    const page = await authors.getMultiJoined(db.knex, {
      joinsConfig: [
        { relation: 'books', schemaToSelect: ['id', 'title'] },
        { relation: 'awards', schemaToSelect: ['title'], sortColumns: 'year' },
      ],
      limit: 2,
    });
    expect(page.total_count).toBe(3);
    expect(page.data).toEqual([
      expect.objectContaining({
        name: 'Ann',
        books: [
          { id: 1, title: 'A1' },
          { id: 2, title: 'A2' },
          { id: 3, title: 'A3' },
        ],
        awards: [{ title: 'Silver' }, { title: 'Gold' }],
      }),
      expect.objectContaining({ name: 'Bob', books: [{ id: 4, title: 'B1' }], awards: [] }),
    ]);
  });

  it('paginates parents, not joined rows', async () => {
    const second = await authors.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'books' }, { relation: 'awards' }],
      offset: 1,
      limit: 1,
    });
    expect(second.data.map((a) => a.name)).toEqual(['Bob']);
    expect(second.total_count).toBe(3);
  });

  it('runs one query per relation, however many parents (no N+1)', async () => {
    const before = queries;
    await authors.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'books' }, { relation: 'awards' }, { relation: 'profile' }],
    });
    expect(queries - before).toBe(5); // rows, count, books, awards, profile
  });

  it("limits one-to-many rows per parent with nestedLimit, in the join's order", async () => {
    const { data } = await authors.getMultiJoined(db.knex, {
      joinsConfig: [
        { relation: 'books', schemaToSelect: ['title'], sortColumns: 'pages', sortOrders: 'desc', nestedLimit: 2 },
      ],
    });
    expect(data.map((a) => a.books)).toEqual([[{ title: 'A3' }, { title: 'A2' }], [{ title: 'B1' }], []]);
  });

  it('follows many-to-many relations through their join table', async () => {
    const { data } = await books.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'tags', schemaToSelect: ['label'] }],
    });
    expect(data.map((b) => [b.title, b.tags])).toEqual([
      ['A1', [{ label: 'fiction' }, { label: 'history' }]],
      ['A2', [{ label: 'poetry' }]],
      ['A3', []],
      ['B1', [{ label: 'fiction' }]],
      ['Orphan', []],
    ]);
  });

  it('joins by an explicit joinOn map and relationshipType', async () => {
    const { data } = await books.getMultiJoined(db.knex, {
      joinsConfig: [
        {
          model: Review,
          joinOn: { id: 'book_id' },
          relationshipType: 'one-to-many',
          alias: 'critiques',
          schemaToSelect: ['stars'],
          filters: { stars__gte: 4 },
        },
      ],
      filters: { id__in: [1, 2] },
    });
    expect(data.map((b) => b.critiques)).toEqual([[{ stars: 5 }, { stars: 4 }], []]);
  });

  it('an inner join keeps only parents that have a related row', async () => {
    const page = await authors.getMultiJoined(db.knex, { joinsConfig: [{ relation: 'awards', joinType: 'inner' }] });
    expect(page.data.map((a) => a.name)).toEqual(['Ann']);
    expect(page.total_count).toBe(1);
  });

  it('one-to-one join filters restrict the parents', async () => {
    const page = await books.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'author', filters: { name: 'Bob' } }],
    });
    expect(page.data.map((b) => b.title)).toEqual(['B1']);
    expect(await books.count(db.knex, {}, { joinsConfig: [{ relation: 'author', filters: { name: 'Bob' } }] })).toBe(1);
  });

  it('keeps the owner key out of the answer when the schema does not select it', async () => {
    const row = await books.getJoined(
      db.knex,
      { id: 1 },
      { schemaToSelect: ['title'], joinsConfig: [{ relation: 'author', schemaToSelect: ['name'] }] },
    );
    expect(row).toEqual({ title: 'A1', author: { name: 'Ann' } });
  });

  it('rejects an unknown relation, listing the available ones', async () => {
    await expect(authors.getMultiJoined(db.knex, { joinsConfig: [{ relation: 'pets' }] })).rejects.toThrow(
      'Invalid relationship names: pets. Available relationships of Author: books, awards, profile',
    );
    await expect(
      authors.getMultiJoined(db.knex, { joinsConfig: [{ relation: 'books', schemaToSelect: ['isbn'] }] }),
    ).rejects.toThrow(ConfigurationError);
  });
});
