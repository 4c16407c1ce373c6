import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';
import { rowIds } from './pages';

/** Bulk delete: typed ids, all or nothing, soft delete where the model has it. */
export function bulkDeleteArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin bulk delete on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let uids: string[];
    beforeAll(async () => {
      env = await startAdminApp(harness, engine);
      uids = await seed(env.db, 15);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    const bulk = (model: string, body: unknown, query = '') =>
      client.request('DELETE', `/admin/${model}/bulk-delete${query}`, {
        json: body,
        headers: { 'x-csrf-token': client.csrf, accept: 'text/html' },
      });
    const live = async () =>
      Number((await env.db.knex('items').where({ is_deleted: false }).count({ n: '*' }).first())!.n);

    it('soft-deletes the rows and answers the refreshed list partial on the same page', async () => {
      const answer = await bulk('items', { ids: [1, '2'] }, '?page=2&rows-per-page-select=10');
      expect(answer.status).toBe(200);
      expect(answer.text.startsWith('<section id="list-content"')).toBe(true);
      expect(answer.text).toContain('13 rows · page 2 of 2');
      expect(rowIds(answer.text)).toHaveLength(3);
      expect(await live()).toBe(13);
      const gone = await env.db.knex('items').whereIn('id', [1, 2]);
      expect(gone.map((r) => Boolean(r.is_deleted))).toEqual([true, true]);
      expect(gone.every((r) => r.deleted_at)).toBe(true);
    });

    it('answers 400 when no ids are given', async () => {
      expect((await bulk('items', { ids: [] })).status).toBe(400);
      expect((await bulk('items', {})).status).toBe(400);
    });

    it('answers 422 for an id of the wrong format, deleting nothing', async () => {
      const answer = await bulk('items', { ids: [3, 'three'] });
      expect(answer.status).toBe(422);
      expect(answer.json.detail[0].loc).toEqual(['body', 'ids', 1]);
      expect((await bulk('items', { ids: [3, 1.5] })).status).toBe(422);
      expect((await bulk('items', { ids: 'all' })).status).toBe(422);
      expect(await live()).toBe(13);
    });

    it('deletes all or nothing: a missing id leaves every row in place', async () => {
      const answer = await bulk('items', { ids: [3, 999999] });
      expect(answer.status).toBe(404);
      expect(await live()).toBe(13);
    });

    it('deletes UUID-keyed rows (hard: no soft-delete flag) by their key', async () => {
      expect((await bulk('gadgets', { ids: ['not-a-uuid'] })).status).toBe(422);
      const answer = await bulk('gadgets', { ids: [uids[0].toUpperCase()] });
      expect(answer.status).toBe(200);
      expect((await env.db.knex('gadgets').select('uid')).map((r) => r.uid)).toEqual([uids[1]]);
    });
  });
}
