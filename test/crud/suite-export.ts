// Export: every row of the list's filters and sort, streamed as CSV, NDJSON or a JSON
// array in keyset pages (two rows a page here, so every answer spans several), with the
// answered columns only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, crudRouter } from '@crudsmith/core';
import { itemOptions, type Api, type CrudEnv } from './kit';
import { ITEM_READ_FIELDS } from './schemas';

// Cells a spreadsheet would run, and cells RFC 4180 quotes.
const TRICKY = [
  { name: '=HYPERLINK("x")', description: 'say "hi", then\r\nbye', category: 'odd', price: -2 },
  { name: '@SUM(A1)', description: '+1', category: 'odd', price: null },
  { name: '-2+3', description: '\tindent', category: 'odd', price: 1.5 },
];

export function describeExport(env: CrudEnv): void {
  describe('export: GET /{model}/export', () => {
    let api: Api;

    beforeAll(async () => {
      await env.resetItems();
      await env.knex('items').insert(TRICKY.map((row) => ({ ...row, created_at: new Date(), is_deleted: false })));
      const deny = () => Promise.reject(new ForbiddenError('No listing'));
      api = await env.serve(
        crudRouter(itemOptions(env.knex, { filterConfig: { category: null }, export: { pageSize: 2 } })),
        crudRouter(itemOptions(env.knex, { path: '/denied', export: true, readMultiDeps: [deny] })),
      );
    });
    afterAll(() => env.resetItems());

    it('streams CSV: header row of the answered columns, RFC 4180 quoting, formulas neutralised', async () => {
      const res = await api.get('/items/export?format=csv&category=odd&sort=-id');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="items.csv"');
      const body = res.body as string;
      expect(body.startsWith(`${ITEM_READ_FIELDS.join(',')}\r\n9,'-2+3,'\tindent,odd,1.5,,`)).toBe(true);
      // Rows 9, 8, 7 over two pages; the quoted record spans two lines.
      expect(body).toContain(`\r\n8,'@SUM(A1),'+1,odd,,,`);
      expect(body).toContain(`\r\n7,"'=HYPERLINK(""x"")","say ""hi"", then\r\nbye",odd,-2,,`);
      expect(body.endsWith('\r\n')).toBe(true);
      expect(body.split('\r\n')).toHaveLength(6);
      expect(body).not.toContain('is_deleted');
    });

    it('streams NDJSON, one object a line, with the filters and sort of the list', async () => {
      const res = await api.get('/items/export?format=ndjson&category=tools&sort=-price');
      expect(res.headers.get('content-type')).toBe('application/x-ndjson');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="items.ndjson"');
      const rows = (res.body as string)
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(rows.map((row) => row.name)).toEqual(['beta', 'Alpha']);
      expect(Object.keys(rows[0])).toEqual(ITEM_READ_FIELDS);
    });

    it('streams a JSON array of every row, across pages, without hidden columns', async () => {
      const res = await api.get('/items/export?format=json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="items.json"');
      expect(res.body.map((row: { id: number }) => row.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(res.body[0]).not.toHaveProperty('is_deleted');
      const none = await api.get('/items/export?format=json&category=none');
      expect(none.body).toEqual([]);
    });

    it('refuses (400) an unknown format, a window, or a hidden sort column; obeys the list dependencies', async () => {
      const xml = await api.get('/items/export?format=xml');
      expect(xml.status).toBe(400);
      expect(xml.body.detail).toBe('Invalid export format: use csv, ndjson, json');
      const limited = await api.get('/items/export?limit=2');
      expect(limited.status).toBe(400);
      expect(limited.body.detail).toBe("An export answers every matching row: 'limit' does not apply");
      expect((await api.get('/items/export?sort=is_deleted')).status).toBe(400);
      expect((await api.get('/denied/export')).status).toBe(403);
    });

    it('is added only when asked for, and published with its format parameter', () => {
      const paths = (extra: object) => crudRouter(itemOptions(env.knex, extra)).routes.map((r) => r.path);
      expect(paths({})).not.toContain('/items/export');
      const route = crudRouter(itemOptions(env.knex, { export: true })).routes.find((r) => r.path === '/items/export');
      expect(route?.method).toBe('GET');
      expect(route?.doc?.parameters?.map((p) => p.name)).toEqual(['format', 'sort']);
      expect(() => crudRouter(itemOptions(env.knex, { export: { pageSize: 0 } }))).toThrow(/export.pageSize/);
    });
  });
}
