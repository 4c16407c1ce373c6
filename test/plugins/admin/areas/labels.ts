import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { adminOptions, seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** Human labels for views and columns, and values shown by type, the same on every page. */
export function labelsArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin labels and values on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, {});
      const base = adminOptions(env.db).models;
      // The same app again, its tiers view with labels of its own.
      await env.close();
      env = await startAdminApp(harness, engine, {
        models: {
          ...base,
          tiers: { ...base.tiers, label: { singular: 'Plan', plural: 'Plans' }, columnLabels: { name: 'Plan name' } },
        },
      });
      await seed(env.db, 3);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('names views and columns in words derived from their names: singular, plural, column headers', async () => {
      const list = await client.get('/admin/items/');
      expect(list.text).toContain('<h1>Items</h1>');
      expect(list.text).toContain('>New item</a>');
      for (const header of ['ID', 'Name', 'In stock', 'Created at', 'Deleted at'])
        expect(list.text).toMatch(new RegExp(`sort=[a-z_]+">${header}</a></th>`));
      expect(list.text).not.toMatch(/>(in_stock|created_at|is_deleted)<\/a><\/th>/);
      const form = await client.get('/admin/items/create_page');
      expect(form.text).toContain('<h1>New item</h1>');
      expect(form.text).toMatch(/<label for="f-in_stock">In stock<\/label>/);
      const [row] = await env.db.knex('items').where({ name: 'item-02' }).select('id');
      expect((await client.get(`/admin/items/update/${row.id}`)).text).toContain('<h1>Edit item item-02</h1>');
      const users = await client.get('/admin/users/');
      expect(users.text).toMatch(/sort=tier_id">Tier<\/a><\/th>/);
    });

    it("takes a view's own labels over the derived ones", async () => {
      const list = await client.get('/admin/tiers/');
      expect(list.text).toContain('<h1>Plans</h1>');
      expect(list.text).toContain('>New plan</a>');
      expect(list.text).toMatch(/sort=name">Plan name<\/a><\/th>/);
      expect(list.text).toMatch(/<nav>.*<a href="\/admin\/tiers\/">Plans<\/a>/);
    });

    it('shows values by type: dates with the exact instant on hover, booleans and numbers, long text cut with the whole on demand', async () => {
      await env.db.knex('items').insert({
        name: 'long',
        category: 'x'.repeat(40),
        price: 2.5,
        in_stock: true,
        created_at: new Date('2026-03-04T05:06:07.000Z'),
      });
      const list = await client.get('/admin/items/?search=long&column-to-search=name');
      const row = /<tr data-id="\d+">(.*?)<\/tr>/.exec(list.text)![1];
      expect(row).toContain(
        '<time datetime="2026-03-04T05:06:07.000Z" title="2026-03-04T05:06:07.000Z">4 Mar 2026, 05:06 UTC</time>',
      );
      expect(row).toContain('<span class="badge yes">Yes</span>');
      expect(row).toContain('<td class="num">2.5</td>');
      expect(row).toContain('<span class="empty">—</span>');
    });

    it('shows the trash exactly as the list: a date and a boolean, not stored numbers', async () => {
      const [row] = await env.db.knex('items').where({ name: 'item-01' }).select('id');
      const deleted = await client.request('DELETE', '/admin/items/bulk-delete', {
        json: { ids: [row.id] },
        headers: { 'x-csrf-token': client.csrf },
      });
      expect(deleted.status).toBe(200);
      const trash = await client.get('/admin/items/trash');
      expect(trash.status).toBe(200);
      const cells = /<tr data-id="\d+">(.*?)<\/tr>/.exec(trash.text)![1];
      // in stock, tags, created at, updated at, deleted, deleted at
      expect(cells).toMatch(
        /<td><span class="badge no">No<\/span><\/td><td><span class="empty">—<\/span><\/td><td><time datetime="[^"]+Z" title="[^"]+">\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC<\/time><\/td><td>.*?<\/td><td><span class="badge yes">Yes<\/span><\/td><td><time datetime="[^"]+Z"/,
      );
      expect(cells).not.toMatch(/<td>\d{13}<\/td>|<td>1<\/td>/);
      expect(trash.text).toContain('<h1>Items: trash</h1>');
    });
  });
}
