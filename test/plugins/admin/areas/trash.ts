import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';
import { rowIds } from './pages';

/** The trash of a soft-delete model: deleted rows, restore and permanent delete, all or nothing. */
export function trashArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin trash on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { eventIntegration: true });
      await seed(env.db, 6);
      client = await env.signedIn();
      const removed = await client.request('DELETE', '/admin/items/bulk-delete', {
        json: { ids: [1, 2, 3] },
        headers: { 'x-csrf-token': client.csrf },
      });
      expect(removed.status).toBe(200);
    });
    afterAll(async () => env?.close());

    const flags = async () =>
      Object.fromEntries(
        (await env.db.knex('items').orderBy('id').select('id', 'is_deleted')).map((r) => [r.id, Boolean(r.is_deleted)]),
      );

    it('lists the soft-deleted rows only, and exists only for soft-delete models', async () => {
      const page = await client.get('/admin/items/trash');
      expect(page.status).toBe(200);
      expect(rowIds(page.text).sort()).toEqual(['1', '2', '3']);
      expect((await client.get('/admin/items/')).text).toContain('href="/admin/items/trash"');
      expect((await client.get('/admin/gadgets/trash')).status).toBe(404);
    });

    it('restores the chosen rows (a form without JavaScript), clearing the deletion time', async () => {
      expect((await client.postForm('/admin/items/trash/restore', { ids: ['1', '2'] })).status).toBe(303);
      expect(await flags()).toMatchObject({ 1: false, 2: false, 3: true });
      expect((await env.db.knex('items').where({ id: 1 }).first()).deleted_at).toBeNull();
      expect(rowIds((await client.get('/admin/items/get_model_list?rows-per-page-select=10')).text)).toContain('1');
    });

    it('changes nothing when a chosen row is not in the trash (404), or none is chosen (400), or without the token (403)', async () => {
      expect((await client.postForm('/admin/items/trash/restore', { ids: ['3', '4'] })).status).toBe(404);
      expect((await client.postForm('/admin/items/trash/purge', { ids: ['3', '4'] })).status).toBe(404);
      expect((await client.postForm('/admin/items/trash/purge', {})).status).toBe(400);
      expect((await client.postForm('/admin/items/trash/purge', { ids: 'x' })).status).toBe(422);
      expect((await client.request('POST', '/admin/items/trash/purge', { form: { ids: '3' } })).status).toBe(403);
      expect(await flags()).toMatchObject({ 3: true, 4: false });
    });

    it('deletes the chosen rows for good, and logs restores and permanent deletes', async () => {
      expect((await client.postForm('/admin/items/trash/purge', { ids: '3' })).status).toBe(303);
      expect(await env.db.knex('items').where({ id: 3 }).first()).toBeUndefined();
      const types = (
        await env.db.knex('admin_events').whereIn('event_type', ['restore', 'purge']).select('event_type', 'record_id')
      ).map((e) => `${e.event_type}:${e.record_id}`);
      expect(types.sort()).toEqual(['purge:3', 'restore:1', 'restore:2']);
    });
  });
}
