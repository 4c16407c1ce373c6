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
  });
}
