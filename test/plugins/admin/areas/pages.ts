import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** The ids of the rows a list page shows, in order, from their data-id attributes. */
export function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);
}

/** The dashboard, the lists with their query, and the static assets. */
export function pagesArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin pages on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let uids: string[];
    const logged: string[] = [];
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { logger: { error: (message) => void logged.push(message) } });
      uids = await seed(env.db, 23);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('shows every viewable model with its row count on the dashboard and its partial', async () => {
      const page = await client.get('/admin/');
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<a href="\/admin\/items\/">Items<\/a><\/td><td>23<\/td>/);
      expect(page.text).toMatch(/<a href="\/admin\/gadgets\/">Gadgets<\/a><\/td><td>2<\/td>/);
      const partial = await client.get('/admin/dashboard-content', { 'HX-Request': 'true' });
      expect(partial.status).toBe(200);
      expect(partial.text.startsWith('<section id="dashboard-content"')).toBe(true);
      expect(partial.text).not.toContain('<html');
      expect(page.text).not.toContain('Latest events');
    });

    it('lists 10 rows by default, each carrying its primary key in data-id', async () => {
      const page = await client.get('/admin/items/');
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(rowIds(page.text)).toHaveLength(10);
      expect(page.text).toContain('23 rows · page 1 of 3');
      expect(page.text).toMatch(/<body hx-headers="\{&quot;X-CSRF-Token&quot;:&quot;[A-Za-z0-9_-]{43}&quot;\}"/);
    });

    it('pages with page and rows-per-page-select, and sorts by a column', async () => {
      const viaHtmx = await client.get('/admin/items/get_model_list?page=2&search=item&column-to-search=name', {
        'HX-Request': 'true',
      });
      expect(viaHtmx.headers.get('hx-push-url')).toBe(
        '/admin/items/?page=2&rows-per-page-select=10&column-to-search=name&search=item',
      );
      const third = await client.get('/admin/items/get_model_list?page=3&rows-per-page-select=10');
      expect(rowIds(third.text)).toHaveLength(3);
      expect(third.text).not.toContain('<html');
      const big = await client.get('/admin/items/?rows-per-page-select=25');
      expect(rowIds(big.text)).toHaveLength(23);
      const sorted = await client.get('/admin/items/?sort=-price&rows-per-page-select=10');
      const ids = rowIds(sorted.text).map(Number);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const searched = await client.get('/admin/items/?column-to-search=name&search=item&sort=price');
      expect(searched.text).toContain(
        '<a href="/admin/items/?page=1&amp;rows-per-page-select=10&amp;column-to-search=name&amp;search=item&amp;sort=-price">Price</a>',
      );
    });

    it('refuses a bad page, rows-per-page or column with 422 and an unknown sort column with 400', async () => {
      expect((await client.get('/admin/items/?page=0')).status).toBe(422);
      expect((await client.get('/admin/items/?rows-per-page-select=7')).status).toBe(422);
      expect((await client.get('/admin/items/?column-to-search=nope&search=x')).status).toBe(422);
      expect((await client.get('/admin/items/?sort=nope')).status).toBe(400);
    });

    it('searches text case-insensitively with wildcards taken literally', async () => {
      const found = await client.get(
        '/admin/items/get_model_list?column-to-search=name&search=ITEM-0&rows-per-page-select=25',
      );
      expect(rowIds(found.text)).toHaveLength(9);
      const percent = await client.get(
        `/admin/items/get_model_list?column-to-search=category&search=${encodeURIComponent('50%')}&rows-per-page-select=25`,
      );
      expect(rowIds(percent.text)).toHaveLength(11);
      const wildcard = await client.get(
        `/admin/items/get_model_list?column-to-search=category&search=${encodeURIComponent('%')}&rows-per-page-select=25`,
      );
      expect(rowIds(wildcard.text)).toHaveLength(11);
      const underscore = await client.get(
        `/admin/items/get_model_list?column-to-search=name&search=${encodeURIComponent('_')}`,
      );
      expect(rowIds(underscore.text)).toHaveLength(0);
    });

    it('searches numbers and booleans by equality, and refuses text that is not one (422)', async () => {
      const price = await client.get('/admin/items/get_model_list?column-to-search=price&search=7');
      expect(rowIds(price.text)).toEqual(['7']);
      const stock = await client.get(
        '/admin/items/get_model_list?column-to-search=in_stock&search=true&rows-per-page-select=25',
      );
      expect(rowIds(stock.text)).toHaveLength(7);
      expect((await client.get('/admin/items/get_model_list?column-to-search=price&search=seven')).status).toBe(422);
      expect((await client.get('/admin/items/get_model_list?column-to-search=id&search=1e3')).status).toBe(422);
    });

    it('refuses a search longer than 50 characters with 422', async () => {
      expect((await client.get(`/admin/items/?column-to-search=name&search=${'x'.repeat(50)}`)).status).toBe(200);
      expect((await client.get(`/admin/items/?column-to-search=name&search=${'x'.repeat(51)}`)).status).toBe(422);
    });

    it('lists and searches a UUID-keyed model by its key', async () => {
      const page = await client.get('/admin/gadgets/');
      expect(rowIds(page.text).sort()).toEqual([...uids].sort());
      const one = await client.get(
        `/admin/gadgets/get_model_list?column-to-search=uid&search=${uids[1].toUpperCase()}`,
      );
      expect(rowIds(one.text)).toEqual([uids[1]]);
      expect((await client.get('/admin/gadgets/get_model_list?column-to-search=uid&search=not-a-uuid')).status).toBe(
        422,
      );
    });

    it('serves only the routes of the allowed actions', async () => {
      expect((await client.get('/admin/gadgets/create_page')).status).toBe(404);
      expect(
        (
          await client.request('DELETE', '/admin/users/bulk-delete', {
            json: { ids: [1] },
            headers: { 'x-csrf-token': client.csrf },
          })
        ).status,
      ).toBe(404);
    });

    it('serves htmx and the stylesheet from the installed packages with a long cache, an ETag and 304', async () => {
      const page = await client.get('/admin/');
      const src = /<script src="(\/admin\/static\/htmx\.min\.js\?v=[^"]+)"/.exec(page.text)![1];
      const htmx = await client.get(src);
      expect(htmx.status).toBe(200);
      expect(htmx.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(htmx.headers.get('cache-control')).toContain('max-age=31536000');
      expect(htmx.text).toContain('htmx');
      const etag = htmx.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await client.get(src, { 'If-None-Match': etag });
      expect(again.status).toBe(304);
      expect((await client.get('/admin/static/admin.css')).headers.get('content-type')).toMatch(/^text\/css/);
      expect((await client.get('/admin/static/..%2Fpackage.json')).status).toBe(404);
      expect((await client.get('/admin/static/layout.pug')).status).toBe(404);
    });

    it('reads a list page with a search in at most 2 SQL queries on the model (page and count)', async () => {
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      try {
        const page = await client.get('/admin/items/get_model_list?column-to-search=name&search=item&page=2');
        expect(page.status).toBe(200);
      } finally {
        env.db.knex.removeListener('query', listen);
      }
      const onModel = queries.filter((sql) => /\bitems\b/.test(sql));
      expect(onModel.length).toBeGreaterThanOrEqual(1);
      expect(onModel.length).toBeLessThanOrEqual(2);
    });

    it('answers a database error with an error page that tells nothing of the SQL, never an empty list', async () => {
      await env.db.knex.schema.renameTable('gadgets', 'gadgets_away');
      try {
        const page = await client.get('/admin/gadgets/');
        expect(page.status).toBe(500);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(page.text).toContain('Something went wrong');
        expect(page.text).not.toMatch(/select|gadgets_away|no such table|does not exist/i);
        expect(page.text).not.toContain('0 rows');
        expect(logged.some((line) => line.startsWith('admin GET /admin/gadgets/ failed'))).toBe(true);
      } finally {
        await env.db.knex.schema.renameTable('gadgets_away', 'gadgets');
      }
    });

    it('answers a missing page of the admin with a 404 page, not a crash', async () => {
      expect((await client.get('/admin/items/update/999999')).status).toBe(404);
      expect((await client.get('/admin/items/update/abc')).status).toBe(404);
    });
  });
}
