import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** The list's Export (CSV of the current search and sort) and Import (a CSV upload, all or nothing). */
export function csvArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin CSV export and import on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { eventIntegration: true });
      await seed(env.db, 6);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('exports the rows of the current search and sort as CSV, with an Export link on the list', async () => {
      const list = await client.get('/admin/items/?search=odd&column-to-search=category&sort=-price');
      expect(list.text).toContain(
        'href="/admin/items/export?page=1&amp;rows-per-page-select=10&amp;column-to-search=category&amp;search=odd&amp;sort=-price"',
      );
      const answer = await client.get('/admin/items/export?search=odd&column-to-search=category&sort=-price');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(answer.headers.get('content-disposition')).toBe('attachment; filename="items.csv"');
      const lines = answer.text.split('\r\n');
      expect(lines[0].split(',').slice(0, 4)).toEqual(['id', 'name', 'category', 'price']);
      expect(lines.slice(1, -1).map((line) => line.split(',')[1])).toEqual(['item-05', 'item-03', 'item-01']);
      const events = await env.db.knex('admin_events').where({ event_type: 'export' });
      expect(events).toHaveLength(1);
    });
    const upload = (csv: string) => {
      const form = new FormData();
      form.append('csrf_token', client.csrf);
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'items.csv');
      return client.request('POST', '/admin/items/import', { multipart: form });
    };
    const named = (prefix: string) => env.db.knex('items').where('name', 'like', `${prefix}%`).orderBy('id');

    it('imports a valid file in one go: each row created, one import event', async () => {
      await client.get('/admin/items/');
      const answer = await upload('name,category,price,in_stock\r\nnew-1,"a, ""b""",3.5,true\r\nnew-2,,,false\r\n');
      expect(answer.status).toBe(303);
      const rows = await named('new-');
      expect(
        rows.map((r) => [r.name, r.category, r.price === null ? null : Number(r.price), Boolean(r.in_stock)]),
      ).toEqual([
        ['new-1', 'a, "b"', 3.5, true],
        ['new-2', null, null, false],
      ]);
      expect(await env.db.knex('admin_events').where({ event_type: 'import' })).toHaveLength(1);
    });

    it('imports nothing when a line is bad, and names every bad line; bounds the upload (413)', async () => {
      const answer = await upload('name,price\nbad-1,1\nbad-2,abc\nbad-3,2,9\n');
      expect(answer.status).toBe(422);
      expect(answer.text).toContain('Line 3: price: Enter a number');
      expect(answer.text).toContain('Line 4: 3 fields, the header has 2');
      expect(await named('bad-')).toEqual([]);
      const unknown = await upload('name,colour\nx,red\n');
      expect(unknown.text).toContain("Line 1: unknown column 'colour'");
      expect((await upload('name\n"never closed\n')).text).toContain('Line 2: a quoted field is never closed');
      expect((await upload(`name\n${'y'.repeat(5000)}\n`)).status).toBe(413);
    });

    it('imports back a file it exported: the key and server-set columns left out, formula text as it was', async () => {
      const rows = [
        { name: '=1+2', price: -2.5, in_stock: true },
        { name: "'@quoted", price: null, in_stock: false },
        { name: '-5', price: 7, in_stock: true },
      ];
      const when = new Date('2026-01-02T03:04:05.678Z');
      await env.db.knex('items').insert(rows.map((row) => ({ ...row, category: 'roundtrip', created_at: when })));
      const exported = await client.get('/admin/items/export?search=roundtrip&column-to-search=category&sort=name');
      expect(exported.text).toContain("'=1+2");
      expect(exported.text).toContain('2026-01-02T03:04:05.678Z');
      await env.db.knex('items').where({ category: 'roundtrip' }).delete();
      await client.get('/admin/items/');
      expect((await upload(exported.text)).status).toBe(303);
      const back = await env.db.knex('items').where({ category: 'roundtrip' });
      const byName = (x: { name: string }, y: { name: string }) => (x.name < y.name ? -1 : 1);
      const stored = back.map((r) => ({
        name: r.name,
        price: r.price === null ? null : Number(r.price),
        in_stock: Boolean(r.in_stock),
      }));
      expect(stored.sort(byName)).toEqual([...rows].sort(byName));
    });
  });
}
