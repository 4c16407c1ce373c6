// Read-many: list envelopes, pagination input, deterministic order, keyset cursors and
// the limits on each.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter } from '@crudsmith/core';
import { itemOptions, type Answer, type Api, type CrudEnv } from './kit';

const ids = (res: Answer): number[] => res.body.data.map((row: { id: number }) => row.id);

export function describeList(env: CrudEnv): void {
  describe('read-many: GET /{model}', () => {
    let api: Api;
    let small: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex, { filterConfig: { category: null } })));
      // maxLimit 5 and defaultLimit 4 make the limits visible with six rows.
      small = await env.serve(
        crudRouter(itemOptions(env.knex, { maxLimit: 5, defaultLimit: 4, filterConfig: { category: null } })),
      );
    });

    describe('envelopes and pagination', () => {
      it('answers {data, total_count} for offset and limit', async () => {
        const res = await api.get('/items?offset=1&limit=2');
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['data', 'total_count']);
        expect(ids(res)).toEqual([2, 3]);
        expect(res.body.total_count).toBe(6);
      });

      it('reads limit alone from offset 0, and offset alone with the default limit', async () => {
        expect(ids(await api.get('/items?limit=2'))).toEqual([1, 2]);
        expect(ids(await api.get('/items?offset=4'))).toEqual([5, 6]);
      });

      it('answers the first defaultLimit rows, in order, without pagination parameters', async () => {
        const res = await small.get('/items');
        expect(res.body).toEqual({ data: expect.any(Array), total_count: 6 });
        expect(ids(res)).toEqual([1, 2, 3, 4]);
      });

      it('answers {data, total_count, has_more, page, items_per_page} for page and itemsPerPage', async () => {
        const res = await api.get('/items?page=2&itemsPerPage=2');
        expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'items_per_page', 'page', 'total_count']);
        expect(res.body).toMatchObject({ total_count: 6, has_more: true, page: 2, items_per_page: 2 });
        expect(ids(res)).toEqual([3, 4]);
        const last = await api.get('/items?page=3&itemsPerPage=2');
        expect(last.body).toMatchObject({ has_more: false, page: 3 });
        expect(ids(last)).toEqual([5, 6]);
      });

      it('accepts items_per_page as well as itemsPerPage', async () => {
        const res = await api.get('/items?page=2&items_per_page=4');
        expect(res.body).toMatchObject({ total_count: 6, has_more: false, page: 2, items_per_page: 4 });
        expect(ids(res)).toEqual([5, 6]);
      });

      it('reads page alone as 10 per page, and itemsPerPage alone as page 1', async () => {
        const pageOnly = await api.get('/items?page=1');
        expect(pageOnly.body).toMatchObject({ page: 1, items_per_page: 10, has_more: false, total_count: 6 });
        expect(ids(pageOnly)).toEqual([1, 2, 3, 4, 5, 6]);
        const perPageOnly = await api.get('/items?itemsPerPage=4');
        expect(perPageOnly.body).toMatchObject({ page: 1, items_per_page: 4, has_more: true });
        expect(ids(perPageOnly)).toEqual([1, 2, 3, 4]);
      });

      it('counts has_more against the filtered total', async () => {
        const res = await api.get('/items?category=tools&page=1&itemsPerPage=2');
        expect(res.body).toMatchObject({ total_count: 2, has_more: false });
        expect(ids(res)).toEqual([1, 2]);
      });

      it('answers 400 "Conflicting parameters" for page or itemsPerPage with offset or limit', async () => {
        for (const query of [
          'page=1&offset=0',
          'itemsPerPage=2&limit=2',
          'page=2&limit=1',
          'items_per_page=2&offset=2',
        ]) {
          const res = await api.get(`/items?${query}`);
          expect(res.status, query).toBe(400);
          expect(res.body.detail, query).toMatch(/^Conflicting parameters/);
        }
      });

      it('answers 422 for a negative offset, page < 1, limit < 1, or limit and itemsPerPage above maxLimit', async () => {
        const cases = { offset: 'offset=-1', page: 'page=0', limit: 'limit=0', itemsPerPage: 'itemsPerPage=6' };
        for (const [key, query] of Object.entries(cases)) {
          const res = await small.get(`/items?${query}`);
          expect(res.status, query).toBe(422);
          expect(res.body.detail[0].loc, query).toEqual(['query', key]);
        }
        expect((await small.get('/items?limit=6')).status).toBe(422);
        expect((await small.get('/items?limit=5')).status).toBe(200);
        expect((await api.get('/items?limit=1001')).status).toBe(422);
        expect((await api.get('/items?limit=1000')).status).toBe(200);
      });

      it('never answers more than maxLimit rows by default: page alone gives min(10, maxLimit) per page', async () => {
        expect((await small.get('/items?page=1')).body).toMatchObject({ items_per_page: 5, has_more: true });
        const cursor = await small.get('/items?cursor=');
        expect(ids(cursor)).toEqual([1, 2, 3, 4, 5]);
        expect(typeof cursor.body.next_cursor).toBe('string');
      });

      it('answers 422 for a pagination value that is not a plain integer', async () => {
        for (const query of ['limit=abc', 'limit=1.5', 'offset=1e2', 'page=0x2', 'limit=2&limit=3']) {
          expect((await api.get(`/items?${query}`)).status, query).toBe(422);
        }
      });
    });

    describe('sort', () => {
      it('sorts by -price,name: descending price (nulls last), then name', async () => {
        expect(ids(await api.get('/items?sort=-price,name'))).toEqual([6, 2, 1, 3, 4, 5]);
        expect(ids(await api.get('/items?sort=-price&offset=5'))).toEqual([5]);
      });

      it('ignores blank entries', async () => {
        expect(ids(await api.get('/items?sort=,-price,,name,&limit=5'))).toEqual([6, 2, 1, 3, 4]);
        expect(ids(await api.get('/items?sort=&limit=5'))).toEqual([1, 2, 3, 4, 5]);
      });

      it('answers 400 naming an unknown sort column', async () => {
        const res = await api.get('/items?sort=-price,nope');
        expect(res.status).toBe(400);
        expect(res.body.detail).toContain('nope');
      });

      it('combines with filters and pagination', async () => {
        const res = await api.get('/items?category=tools&sort=-price&limit=1&offset=1');
        expect(res.body.total_count).toBe(2);
        expect(ids(res)).toEqual([1]);
        const paged = await api.get('/items?category=tools&sort=-price&page=1&itemsPerPage=1');
        expect(paged.body).toMatchObject({ total_count: 2, has_more: true });
        expect(ids(paged)).toEqual([2]);
      });

      it('breaks ties by the primary key in the sort direction, so offset pages never overlap or skip', async () => {
        // Categories: null (6), food (4, 5), garden (3), tools (1, 2).
        expect(ids(await api.get('/items?sort=category&limit=5'))).toEqual([6, 4, 5, 3, 1]);
        const walked: number[] = [];
        for (let page = 1; page <= 6; page++)
          walked.push(...ids(await api.get(`/items?sort=category&page=${page}&itemsPerPage=1`)));
        expect(walked).toEqual([6, 4, 5, 3, 1, 2]);
        expect(ids(await api.get('/items?sort=-category&limit=5'))).toEqual([2, 1, 3, 5, 4]);
      });
    });

    describe('cursor (keyset) pages', () => {
      const walk = async (query: string): Promise<{ pages: number[][]; cursors: (string | null)[] }> => {
        const pages: number[][] = [];
        const cursors: (string | null)[] = [];
        let cursor = '';
        for (let i = 0; i < 10; i++) {
          const res = await api.get(`/items?${query}&cursor=${encodeURIComponent(cursor)}`);
          expect(res.status).toBe(200);
          expect(Object.keys(res.body).sort()).toEqual(['data', 'next_cursor']);
          pages.push(ids(res));
          cursors.push(res.body.next_cursor);
          if (res.body.next_cursor === null) break;
          cursor = res.body.next_cursor;
        }
        return { pages, cursors };
      };

      it('answers {data, next_cursor} for an empty cursor (the first page)', async () => {
        const res = await api.get('/items?cursor=&limit=2');
        expect(Object.keys(res.body).sort()).toEqual(['data', 'next_cursor']);
        expect(ids(res)).toEqual([1, 2]);
        expect(typeof res.body.next_cursor).toBe('string');
      });

      it('walks to the end, next_cursor null exactly on the last page', async () => {
        const byTwo = await walk('limit=2');
        expect(byTwo.pages).toEqual([
          [1, 2],
          [3, 4],
          [5, 6],
        ]);
        expect(byTwo.cursors.map((c) => typeof c)).toEqual(['string', 'string', 'object']);
        expect(byTwo.cursors[2]).toBeNull();
        const byFour = await walk('limit=4');
        expect(byFour.pages).toEqual([
          [1, 2, 3, 4],
          [5, 6],
        ]);
        expect(byFour.cursors[1]).toBeNull();
      });

      it('defaults to 100 rows, and honours limit, sort and filters', async () => {
        expect(await api.get('/items?cursor=')).toMatchObject({ body: { next_cursor: null } });
        expect(ids(await api.get('/items?cursor='))).toEqual([1, 2, 3, 4, 5, 6]);
        expect((await walk('limit=2&sort=-price')).pages).toEqual([
          [6, 2],
          [1, 3],
          [4, 5],
        ]);
        expect((await walk('limit=1&sort=-price&category=tools')).pages).toEqual([[2], [1]]);
        expect((await walk('limit=2&sort=category,-price')).pages).toEqual([
          [6, 4],
          [5, 3],
          [2, 1],
        ]);
      });

      it('pages by a sort column the select schema does not answer once the endpoint declares it sortable', async () => {
        const narrow = await env.serve(
          crudRouter(itemOptions(env.knex, { selectSchema: ['id', 'name'], sortable: ['price'] })),
        );
        const first = await narrow.get('/items?cursor=&limit=3&sort=-price');
        expect(first.body.data).toEqual([
          { id: 6, name: 'Epsilon' },
          { id: 2, name: 'beta' },
          { id: 1, name: 'Alpha' },
        ]);
        const next = await narrow.get(
          `/items?limit=3&sort=-price&cursor=${encodeURIComponent(first.body.next_cursor)}`,
        );
        expect(next.body).toEqual({
          data: [
            { id: 3, name: 'Gamma' },
            { id: 4, name: 'Éclair' },
            { id: 5, name: 'delta_x' },
          ],
          next_cursor: null,
        });
        expect((await narrow.get('/items?sort=-price&limit=1')).body.data).toEqual([{ id: 6, name: 'Epsilon' }]);
      });

      it('answers 400 for a cursor with page, itemsPerPage or offset', async () => {
        for (const query of ['cursor=&page=1', 'cursor=&itemsPerPage=2', 'cursor=&offset=0']) {
          const res = await api.get(`/items?${query}`);
          expect(res.status, query).toBe(400);
          expect(typeof res.body.detail).toBe('string');
        }
      });

      it('answers 400 for a cursor it did not issue: malformed, tampered, or of another sort', async () => {
        const first = (await api.get('/items?cursor=&limit=2')).body.next_cursor as string;
        const forged = Buffer.from(JSON.stringify([5])).toString('base64url');
        const flipped = `${first.slice(0, -3)}${first.at(-3) === 'A' ? 'B' : 'A'}${first.slice(-2)}`;
        for (const cursor of ['abc', forged, flipped, `${first}x`, first.slice(0, -1), `${first}.extra`]) {
          const res = await api.get(`/items?limit=2&cursor=${encodeURIComponent(cursor)}`);
          expect(res.status, cursor).toBe(400);
          expect(res.body).toEqual({ detail: 'Invalid cursor' });
        }
        expect((await api.get(`/items?limit=2&sort=-price&cursor=${encodeURIComponent(first)}`)).status).toBe(400);
      });

      it('answers 422 for a cursor page limit above maxLimit', async () => {
        expect((await small.get('/items?cursor=&limit=6')).status).toBe(422);
      });
    });

    describe('maxResponseBytes', () => {
      const bytes = (res: Answer) => Buffer.byteLength(JSON.stringify(res.body));

      it('answers a page over maxResponseBytes 422 on the parameter that sets its length, naming how many rows fit, in every mode', async () => {
        // Room for about three of the six rows, whatever the engine's values look like.
        const max = bytes(await api.get('/items?limit=3')) + 4;
        const guarded = await env.serve(crudRouter(itemOptions(env.knex, { maxResponseBytes: max })));
        const fits = await guarded.get('/items?limit=3');
        expect(fits.status).toBe(200);
        expect(ids(fits)).toEqual([1, 2, 3]);
        expect(bytes(fits)).toBeLessThanOrEqual(max);
        for (const [query, param] of [
          ['limit=6', 'limit'],
          ['', 'limit'],
          ['page=1&itemsPerPage=6', 'itemsPerPage'],
          ['cursor=&limit=6', 'limit'],
        ]) {
          const refused = await guarded.get(`/items?${query}`);
          expect(refused.status, query).toBe(422);
          expect(refused.body.detail).toHaveLength(1);
          expect(refused.body.detail[0]).toMatchObject({ loc: ['query', param], type: 'response_too_large' });
          expect(refused.body.detail[0].msg).toMatch(
            new RegExp(`more than the ${max} this endpoint answers; ask for fewer rows \\((2|3) fit\\)$`),
          );
        }
        // Filters that leave a small page pass.
        expect((await guarded.get('/items?limit=6&offset=4')).status).toBe(200);
      });

      it('refuses a maxResponseBytes that is not a positive integer at startup', () => {
        for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
          expect(() => crudRouter(itemOptions(env.knex, { maxResponseBytes }))).toThrow(
            'maxResponseBytes must be a positive integer',
          );
        }
      });
    });
  });
}
