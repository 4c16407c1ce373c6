import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';
import { rowIds } from './pages';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The list's column filters: by type, with search, sort and paging, in the address, bounded. */
export function filtersArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin column filters on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let uids: string[];
    let tierIds: number[];
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, {});
      uids = await seed(env.db, 23);
      // The seed binds a Date, which SQLite's driver stores as epoch milliseconds; crudsmith
      // writes SQLite date-times as UTC text, the form its comparisons take.
      if (engine === 'sqlite')
        await env.db.knex('items').update({ created_at: new Date().toISOString().replace('T', ' ').slice(0, 23) });
      for (const name of ['free', 'pro']) await env.db.knex('tiers').insert({ name });
      tierIds = (await env.db.knex('tiers').orderBy('id').select('id')).map((t) => Number(t.id));
      await env.db.knex('app_users').insert([
        { username: 'ann', hashed_password: 'x', tier_id: tierIds[0] },
        { username: 'bob', hashed_password: 'x', tier_id: tierIds[1] },
      ]);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('filters by text, number range and boolean with a search and a sort, in at most 2 queries', async () => {
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      let page;
      try {
        page = await client.get(
          '/admin/items/?f.category=EVEN_50%25&f.price.from=4&f.price.to=12&f.in_stock=true&column-to-search=name&search=item&sort=-price',
        );
      } finally {
        env.db.knex.removeListener('query', listen);
      }
      expect(page.status).toBe(200);
      expect(rowIds(page.text)).toEqual(['12', '6']);
      expect(queries.filter((sql) => /\bitems\b/.test(sql)).length).toBeLessThanOrEqual(2);
      // The sort links keep the filters; the filter row shows them, open.
      expect(page.text).toContain('f.category=EVEN_50%25&amp;f.price.from=4&amp;f.price.to=12&amp;f.in_stock=true');
      expect(page.text).toMatch(/<details class="filters" open/);
      expect(page.text).toMatch(/name="f.price.from" value="4"/);
      expect(page.text).not.toContain('name="f.tags');
    });

    it('keeps the filters across pages, and in the address htmx pushes', async () => {
      const partial = await client.get('/admin/items/get_model_list?f.price.from=3&page=2', { 'HX-Request': 'true' });
      expect(rowIds(partial.text)).toHaveLength(10);
      expect(partial.text).toContain('21 rows · page 2 of 3');
      expect(partial.headers.get('hx-push-url')).toBe('/admin/items/?page=2&rows-per-page-select=10&f.price.from=3');
      expect(partial.text).toContain('/admin/items/?page=3&amp;rows-per-page-select=10&amp;f.price.from=3');
    });

    it('filters date-times by whole days, a foreign key and a UUID key by equality', async () => {
      expect(
        rowIds((await client.get(`/admin/items/?f.created_at.from=${day(-1)}&f.created_at.to=${day(0)}`)).text),
      ).toHaveLength(10);
      expect(rowIds((await client.get(`/admin/items/?f.created_at.to=${day(-1)}`)).text)).toEqual([]);
      const users = await client.get(`/admin/users/?f.tier_id=${tierIds[1]}`);
      expect(users.text).toContain('>bob<');
      expect(users.text).not.toContain('>ann<');
      expect(users.text).not.toContain('f.hashed_password');
      expect(rowIds((await client.get(`/admin/gadgets/?f.uid=${uids[0].toUpperCase()}`)).text)).toEqual([uids[0]]);
    });

    it("searches a foreign key's rows on the server (at most 20, one query), and its form select starts bounded", async () => {
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      let found;
      try {
        found = await client.get('/admin/users/lookup/tier_id?q=PR', { accept: 'application/json' });
      } finally {
        env.db.knex.removeListener('query', listen);
      }
      expect(found.json).toEqual({ options: [{ value: String(tierIds[1]), label: 'pro' }] });
      expect(queries.filter((sql) => /\btiers\b/.test(sql))).toHaveLength(1);
      expect((await client.get(`/admin/users/lookup/tier_id?q=${tierIds[0]}`)).json.options).toContainEqual({
        value: String(tierIds[0]),
        label: 'free',
      });
      expect((await client.get(`/admin/users/lookup/tier_id?q=${'x'.repeat(51)}`)).status).toBe(422);
      expect((await client.get('/admin/users/lookup/username?q=a')).status).toBe(404);
      // 25 more tiers: the lookup and the form's select hold 20 (and the row's own tier).
      await env.db
        .knex('tiers')
        .insert(Array.from({ length: 25 }, (_, i) => ({ name: `t-${String(i).padStart(2, '0')}` })));
      expect((await client.get('/admin/users/lookup/tier_id?q=')).json.options).toHaveLength(20);
      const last = await env.db.knex('tiers').where({ name: 't-24' }).first();
      await env.db.knex('app_users').where({ username: 'bob' }).update({ tier_id: last.id });
      const bob = await env.db.knex('app_users').where({ username: 'bob' }).first();
      const form = (await client.get(`/admin/users/update/${bob.id}`)).text;
      expect(form).toContain('data-lookup="/admin/users/lookup/tier_id"');
      const select = /<select id="f-tier_id"[\s\S]*?<\/select>/.exec(form)![0];
      expect(select.match(/<option/g)).toHaveLength(22);
      expect(select).toContain(`<option value="${last.id}" selected>t-24</option>`);
    });

    it('refuses an unknown, hidden or JSON column, a wrong part and a value the column cannot hold with 422', async () => {
      for (const query of [
        'f.nope=1',
        'f.tags=red',
        'f.price=3',
        'f.name.from=a',
        'f.price.from=cheap',
        'f.in_stock=maybe',
        'f.created_at.from=2024-13-45',
        `f.name=${'x'.repeat(51)}`,
      ])
        expect([query, (await client.get(`/admin/items/get_model_list?${query}`)).status]).toEqual([query, 422]);
      expect((await client.get('/admin/users/get_model_list?f.hashed_password=x')).status).toBe(422);
      expect((await client.get('/admin/gadgets/get_model_list?f.uid=nope')).status).toBe(422);
    });
  });
}
