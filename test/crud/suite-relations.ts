// Relationship inclusion options (includeRelationships, includeOneToMany, joinsConfig,
// nestJoins) and one-to-many inclusion (parents paginated, children never duplicated),
// on every endpoint.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter, type CrudOptions, type CrudRouter } from '@crudsmith/core';
import { Author, Book } from '../fixtures/models';
import type { Api, CrudEnv } from './kit';
import { AuthorWrite, BookCreate, BookUpdate } from './schemas';
import { offDocument } from './documented';

const ANN = { id: 1, name: 'Ann', email: 'ann@example.com', is_deleted: false };
const BOB = { id: 2, name: 'Bob', email: 'bob@example.com', is_deleted: false };

export function describeRelations(env: CrudEnv): void {
  describe('related data (relationship inclusion options)', () => {
    const booksRouter = (path: string, extra: Partial<CrudOptions>) =>
      crudRouter({
        session: env.knex,
        model: Book,
        path,
        createSchema: BookCreate,
        updateSchema: BookUpdate,
        deleteSchema: [],
        ...extra,
      });
    const books = (path: string, extra: Partial<CrudOptions>) => env.serve(booksRouter(path, extra));
    let oneToOne: Api;
    let everything: Api;
    let everythingRouter: CrudRouter;

    beforeAll(async () => {
      everythingRouter = booksRouter('/books', { includeRelationships: true, includeOneToMany: true });
      oneToOne = await books('/books', { includeRelationships: true });
      everything = await env.serve(everythingRouter);
    });

    it('relationshipCounts: reads and lists answer <relation>_count per row, and the document says so', async () => {
      const router = crudRouter({
        session: env.knex,
        model: Author,
        path: '/counted',
        includedMethods: ['read', 'readMulti'],
        relationshipCounts: ['books'],
      });
      const counted = await env.serve(router);
      const list = await counted.get('/counted?sort=-name');
      expect(offDocument(router, 'readMulti', list)).toBeUndefined();
      expect(list.body.data.map((a: { name: string; books_count: number }) => [a.name, a.books_count])).toEqual([
        ['Cy', 0],
        ['Bob', 1],
        ['Ann', 3],
      ]);
      expect((await counted.get('/counted/1')).body).toEqual({ ...ANN, books_count: 3 });
      const read = router.routes.find((route) => route.path === '/counted/:id')!;
      expect((read.doc?.responses?.['200'].schema as any).properties.books_count).toEqual({
        type: 'integer',
        minimum: 0,
      });
      expect(() =>
        crudRouter({
          session: env.knex,
          model: Author,
          path: '/bad',
          includedMethods: ['read'],
          relationshipCounts: ['reviews'],
        }),
      ).toThrow(/not a relation of model Author/);
    });

    it('includeRelationships: true includes one-to-one relations only, nested under their name', async () => {
      const read = await oneToOne.get('/books/1');
      expect(read.body).toEqual({ id: 1, title: 'A1', author_id: 1, pages: 100, author: ANN });
      const list = await oneToOne.get('/books?limit=5');
      expect(
        list.body.data.map((b: { title: string; author: { name: string } | null }) => [
          b.title,
          b.author?.name ?? null,
        ]),
      ).toEqual([
        ['A1', 'Ann'],
        ['A2', 'Ann'],
        ['A3', 'Ann'],
        ['B1', 'Bob'],
        ['Orphan', null],
      ]);
      expect(list.body.data.every((b: object) => !('reviews' in b) && !('tags' in b))).toBe(true);
    });

    it('includeOneToMany adds the one-to-many (and many-to-many) relations, and the document says so', async () => {
      const read = await everything.get('/books/1');
      expect(read.body.author).toEqual(ANN);
      expect(read.body.reviews.map((r: { body: string }) => r.body)).toEqual(['great', 'fine', 'good']);
      expect(read.body.tags.map((t: { label: string }) => t.label)).toEqual(['fiction', 'history']);
      const orphan = await everything.get('/books/5');
      expect(orphan.body).toMatchObject({ author: null, reviews: [], tags: [] });
      // The documented answer: a nullable object for one-to-one, a list of rows for the others.
      for (const answer of [read, orphan]) expect(offDocument(everythingRouter, 'read', answer)).toBeUndefined();
      expect(offDocument(everythingRouter, 'readMulti', await everything.get('/books?limit=5'))).toBeUndefined();
      const route = everythingRouter.routes.find((r) => r.path === '/books/:id' && r.method === 'GET')!;
      const { properties } = route.doc!.responses!['200'].schema as any;
      expect(properties.author.oneOf[1]).toEqual({ type: 'null' });
      expect(Object.keys(properties.author.oneOf[0].properties).sort()).toEqual(Object.keys(ANN).sort());
      expect(properties.tags.type).toBe('array');
      expect(Object.keys(properties.tags.items.properties)).toEqual(Object.keys(read.body.tags[0]));
      expect(
        offDocument(everythingRouter, 'read', { status: 200, body: { ...read.body, tags: [{ id: 'x' }] } }),
      ).toMatch(/tags/);
    });

    it('includeRelationships: a list includes exactly those relations, of any type', async () => {
      const reviewsOnly = await books('/books', { includeRelationships: ['reviews'] });
      const book = (await reviewsOnly.get('/books/4')).body;
      expect(Object.keys(book).sort()).toEqual(['author_id', 'id', 'pages', 'reviews', 'title']);
      expect(book.reviews).toEqual([{ id: 5, book_id: 4, stars: 5, body: 'superb' }]);
      const two = await books('/books', { includeRelationships: ['tags', 'author'] });
      expect(Object.keys((await two.get('/books/2')).body).sort()).toEqual([
        'author',
        'author_id',
        'id',
        'pages',
        'tags',
        'title',
      ]);
    });

    it('one-to-many inclusion paginates parents, never repeats children, and counts parents', async () => {
      const authors = await env.serve(
        crudRouter({
          session: env.knex,
          model: Author,
          path: '/authors',
          includedMethods: ['read', 'readMulti'],
          includeRelationships: true,
          includeOneToMany: true,
        }),
      );
      const page = await authors.get('/authors?limit=2');
      expect(page.body.total_count).toBe(3);
      expect(
        page.body.data.map((a: { name: string; books: { title: string }[] }) => [a.name, a.books.map((b) => b.title)]),
      ).toEqual([
        ['Ann', ['A1', 'A2', 'A3']],
        ['Bob', ['B1']],
      ]);
      expect(page.body.data[0].awards.map((a: { title: string }) => a.title)).toEqual(['Gold', 'Silver']);
      expect(page.body.data[0].profile).toMatchObject({ bio: 'Ann writes' });
      const second = await authors.get('/authors?page=2&itemsPerPage=2');
      expect(second.body).toMatchObject({ total_count: 3, has_more: false });
      expect(second.body.data).toEqual([expect.objectContaining({ name: 'Cy', books: [], awards: [], profile: null })]);
      const cursor = await authors.get('/authors?cursor=&limit=1');
      expect(cursor.body.data.map((a: { name: string }) => a.name)).toEqual(['Ann']);
      expect(cursor.body.data[0].books).toHaveLength(3);
    });

    it('joinsConfig: explicit joins with a relation or a model and joinOn, their fields, order and nestedLimit', async () => {
      const joinedRouter = booksRouter('/books', {
        joinsConfig: [
          { model: Author, joinOn: { author_id: 'id' }, alias: 'writer', schemaToSelect: ['name'] },
          {
            relation: 'reviews',
            schemaToSelect: ['stars', 'body'],
            sortColumns: 'stars',
            sortOrders: 'desc',
            nestedLimit: 2,
          },
        ],
      });
      const joined = await env.serve(joinedRouter);
      const read = await joined.get('/books/1');
      expect(read.body).toEqual({
        id: 1,
        title: 'A1',
        author_id: 1,
        pages: 100,
        writer: { name: 'Ann' },
        reviews: [
          { stars: 5, body: 'great' },
          { stars: 4, body: 'good' },
        ],
      });
      const list = await joined.get('/books?sort=-pages&limit=2');
      expect(list.body.data.map((b: { title: string; writer: { name: string } }) => [b.title, b.writer.name])).toEqual([
        ['A3', 'Ann'],
        ['A2', 'Ann'],
      ]);
      expect(offDocument(joinedRouter, 'read', read)).toBeUndefined();
      expect(offDocument(joinedRouter, 'readMulti', list)).toBeUndefined();
      const documented = (
        joinedRouter.routes.find((r) => r.path === '/books/:id')!.doc!.responses!['200'].schema as any
      ).properties;
      expect(Object.keys(documented.writer.oneOf[0].properties)).toEqual(['name']);
      expect(Object.keys(documented.reviews.items.properties)).toEqual(['stars', 'body']);
    });

    describe('nestJoins: false flattens one-to-one fields as <prefix><field>', () => {
      let flat: Api;
      const prefixed = { author_name: 'Bob', author_email: 'bob@example.com' };
      let flatRouter: CrudRouter;

      beforeAll(async () => {
        flatRouter = booksRouter('/flat', {
          joinsConfig: [{ relation: 'author', joinPrefix: 'author_', schemaToSelect: ['name', 'email'] }],
          nestJoins: false,
        });
        flat = await env.serve(flatRouter);
      });

      it('on read and read-many', async () => {
        const read = await flat.get('/flat/4');
        expect(read.body).toEqual({ id: 4, title: 'B1', author_id: 2, pages: 150, ...prefixed });
        const list = await flat.get('/flat?limit=5');
        expect(list.body.data[4]).toEqual({
          id: 5,
          title: 'Orphan',
          author_id: null,
          pages: null,
          author_name: null,
          author_email: null,
        });
        expect(list.body.data.every((b: object) => !('author' in b))).toBe(true);
        expect(offDocument(flatRouter, 'read', read)).toBeUndefined();
        expect(offDocument(flatRouter, 'readMulti', list)).toBeUndefined();
        const documented = (flatRouter.routes.find((r) => r.path === '/flat/:id')!.doc!.responses!['200'].schema as any)
          .properties;
        expect(documented.author).toBeUndefined();
        expect(documented.author_name.type).toContain('null');
      });

      it('on the answers of create, update, delete and db_delete', async () => {
        const created = await flat.post('/flat', { title: 'Flat write', author_id: 2, pages: 10 });
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: expect.any(Number),
          title: 'Flat write',
          author_id: 2,
          pages: 10,
          ...prefixed,
        });
        const { id } = created.body;
        const updated = await flat.patch(`/flat/${id}`, { author_id: 1 });
        expect(updated).toMatchObject({
          status: 200,
          body: { id, author_name: 'Ann', author_email: 'ann@example.com' },
        });
        const deleted = await flat.del(`/flat/${id}`);
        expect(deleted).toMatchObject({ status: 200, body: { id, title: 'Flat write', author_name: 'Ann' } });
        expect((await flat.get(`/flat/${id}`)).status).toBe(404);
        const again = (await flat.post('/flat', { title: 'Flat purge', author_id: 2 })).body.id;
        expect(await flat.del(`/flat/db_delete/${again}`)).toMatchObject({
          status: 200,
          body: { id: again, ...prefixed },
        });
      });
    });

    it('nested, write answers carry the related data too (create, update, soft and hard delete)', async () => {
      const created = await oneToOne.post('/books', { title: 'Nested write', author_id: 2 });
      expect(created).toMatchObject({ status: 201, body: { title: 'Nested write', author: BOB } });
      const id = created.body.id;
      expect((await oneToOne.patch(`/books/${id}`, { author_id: 1 })).body).toMatchObject({ id, author: ANN });
      expect((await oneToOne.del(`/books/${id}`)).body).toMatchObject({ id, title: 'Nested write', author: ANN });
      const authors = await env.serve(
        crudRouter({
          session: env.knex,
          model: Author,
          path: '/authors',
          createSchema: AuthorWrite,
          updateSchema: AuthorWrite,
          deleteSchema: [],
          includeRelationships: ['books'],
        }),
      );
      const author = await authors.post('/authors', { name: 'Dee', email: 'dee@example.com' });
      expect(author).toMatchObject({ status: 201, body: { name: 'Dee', books: [] } });
      expect((await authors.del(`/authors/${author.body.id}`)).body).toMatchObject({ name: 'Dee', books: [] });
      expect((await authors.get(`/authors/${author.body.id}`)).status).toBe(404);
      expect((await authors.del(`/authors/db_delete/${author.body.id}`)).body).toMatchObject({
        name: 'Dee',
        is_deleted: true,
      });
    });
  });
}
