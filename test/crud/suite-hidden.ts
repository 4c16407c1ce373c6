// Columns the answer hides (here an author's email, outside the select schema) stay
// hidden from every way a client shapes a list: sort, the keyset cursor and relation
// filters. Each would otherwise be an oracle: the order of a page, the cursor's content
// or the rows a filter keeps reveal the column one request at a time.
import { beforeAll, describe, expect, it } from 'vitest';
import { IsInt, IsString } from 'class-validator';
import { crudRouter } from '@crudsmith/core';
import { Author, Book } from '../fixtures/models';
import type { Api, CrudEnv } from './kit';

/** What an author read answers: the email stays on the server. */
class AuthorPublic {
  @IsInt() id!: number;
  @IsString() name!: string;
}

const names = (body: { data: { name: string }[] }): string[] => body.data.map((row) => row.name);

export function describeHiddenColumns(env: CrudEnv): void {
  describe('hidden columns: sort, cursor and relation filters', () => {
    let authors: Api;
    let sortable: Api;
    let books: Api;

    beforeAll(async () => {
      const options = {
        session: env.knex,
        model: Author,
        path: '/authors',
        selectSchema: AuthorPublic,
        includedMethods: ['readMulti'],
      };
      authors = await env.serve(crudRouter(options));
      sortable = await env.serve(crudRouter({ ...options, sortable: ['email'] }));
      books = await env.serve(
        crudRouter({
          session: env.knex,
          model: Book,
          path: '/books',
          includedMethods: ['readMulti'],
          filterConfig: { 'author.name': null },
        }),
      );
    });

    it('refuses (400) a sort on a column the answer hides, as it refuses a column the model lacks', async () => {
      for (const query of [
        'sort=email',
        'sort=-email',
        'sort=name,-email',
        'sort=-email&limit=1&cursor=',
        'sort=-email&page=1',
      ]) {
        const res = await authors.get(`/authors?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.detail, query).toBe("Invalid sort column 'email': sort by id, name");
      }
      const missing = await authors.get('/authors?sort=colour');
      expect(missing.status).toBe(400);
      expect(missing.body.detail).toBe("Invalid sort column 'colour': sort by id, name");
    });

    it('publishes the sortable columns in the sort parameter of the list document', () => {
      const list = (sortableToo: boolean) =>
        crudRouter({
          session: env.knex,
          model: Author,
          selectSchema: AuthorPublic,
          includedMethods: ['readMulti'],
          ...(sortableToo ? { sortable: ['email'] } : {}),
        }).routes[0];
      const sortParam = (sortableToo: boolean) =>
        list(sortableToo).doc?.parameters?.find((p) => p.name === 'sort')?.description;
      expect(sortParam(false)).toBe('Comma-separated columns among id, name; a leading - sorts descending');
      expect(sortParam(true)).toBe('Comma-separated columns among id, name, email; a leading - sorts descending');
      expect(() =>
        crudRouter({ session: env.knex, model: Author, includedMethods: ['readMulti'], sortable: ['colour'] }),
      ).toThrow(/sortable column 'colour' is not a column of model Author/);
    });

    it('sorts on a shown column, and on a hidden one the endpoint declares sortable', async () => {
      expect(names((await authors.get('/authors?sort=-name')).body)).toEqual(['Cy', 'Bob', 'Ann']);
      const declared = await sortable.get('/authors?sort=-email');
      expect(declared.status).toBe(200);
      expect(names(declared.body)).toEqual(['Cy', 'Bob', 'Ann']);
      expect(Object.keys(declared.body.data[0]).sort()).toEqual(['id', 'name']);
    });

    it('answers cursors whose content is unreadable, and pages through with them', async () => {
      const first = await sortable.get('/authors?sort=-email&limit=1&cursor=');
      expect(names(first.body)).toEqual(['Cy']);
      const cursor: string = first.body.next_cursor;
      const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
      expect(decoded).not.toContain('cy@example.com');
      expect(decoded).not.toContain('cy@');
      expect(cursor).not.toContain('.');
      const second = await sortable.get(`/authors?sort=-email&limit=1&cursor=${cursor}`);
      expect(names(second.body)).toEqual(['Bob']);
      // Two cursors of the same row differ: nothing repeats that could be compared.
      const again = await sortable.get('/authors?sort=-email&limit=1&cursor=');
      expect(again.body.next_cursor).not.toBe(cursor);
    });

    it('refuses (400) a cursor altered, made by hand, or issued for another sort', async () => {
      const { next_cursor: cursor } = (await sortable.get('/authors?sort=-email&limit=1&cursor=')).body;
      const flipped = `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;
      const handMade = Buffer.from(JSON.stringify(['zz@example.com', 9])).toString('base64url');
      for (const query of [
        `sort=-email&cursor=${flipped}`,
        `sort=-email&cursor=${handMade}`,
        `sort=email&cursor=${cursor}`,
        `sort=-name&cursor=${cursor}`,
      ]) {
        const res = await sortable.get(`/authors?${query}&limit=1`);
        expect(res.status, query).toBe(400);
        expect(res.body.detail, query).toBe('Invalid cursor');
      }
    });

    it('refuses (400) a filter on a related column the endpoint does not declare, hidden or missing alike', async () => {
      expect((await books.get('/books?author.name=Bob')).body.data.map((b: { title: string }) => b.title)).toEqual([
        'B1',
      ]);
      for (const key of [
        'author.email',
        'author.email__startswith',
        'author.email__gt',
        'author.colour',
        'reviews.body__contains',
      ]) {
        const res = await books.get(`/books?${key}=a`);
        expect(res.status, key).toBe(400);
        expect(res.body.detail, key).toMatch(/^Invalid filter '/);
      }
    });
  });
}
