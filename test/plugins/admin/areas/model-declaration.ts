import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyMigrations } from '@crudsmith/core';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { startAdminApp, type AdminEnv, type Client } from '../fixture';
import { orderMigrations, ordersView } from '../orders';

/** A model's own @Crud and @Filter declaration in the admin: required marks, auto fields, the REST list's filters and sorting. */
export function modelDeclarationArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin over a declared model on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(
        harness,
        engine,
        { models: { orders: { ...ordersView, import: true } }, eventIntegration: true },
        { migrations: [orderMigrations, idempotencyMigrations()] },
      );
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('marks required only the fields a create fails without: not an optional field whose column has a default', async () => {
      const form = await client.get('/admin/orders/create_page');
      expect(form.status).toBe(200);
      expect(form.text).toMatch(/<input id="f-product" type="text" name="product" value="" required/);
      expect(form.text).toMatch(/<input id="f-status" type="text" name="status" value="" maxlength="20"/);
      expect(form.text).toMatch(/<input id="f-quantity" type="number" name="quantity" value="">/);
      expect(form.text).not.toMatch(/id="f-note"[^>]* required/);
      expect((await client.postForm('/admin/orders/form_create', { product: 'lamp' })).status).toBe(303);
      expect(await env.db.knex('orders').where({ product: 'lamp' }).first()).toMatchObject({
        status: 'new',
        quantity: 1,
      });
    });

    it("writes the model's auto fields on admin creates and updates, and never offers them as inputs", async () => {
      const form = await client.get('/admin/orders/create_page');
      expect(form.text).not.toContain('name="created_by"');
      expect(
        (await client.postForm('/admin/orders/form_create', { product: 'desk', status: 'paid', quantity: '2' })).status,
      ).toBe(303);
      const row = await env.db.knex('orders').where({ product: 'desk' }).first();
      expect(row).toMatchObject({ created_by: 'admin:root', updated_by: null });
      expect((await client.postForm(`/admin/orders/form_update/${row.id}`, { quantity: '3' })).status).toBe(303);
      expect(await env.db.knex('orders').where({ id: row.id }).first()).toMatchObject({
        quantity: 3,
        created_by: 'admin:root',
        updated_by: 'admin:root',
      });
      // Reverting that update writes back the quantity, not the auto field: it is stamped anew.
      const [update] = await env.db.knex('admin_events').where({ event_type: 'update', model: 'orders' });
      expect((await client.postForm(`/admin/management/events/${update.id}/revert`, {})).status).toBe(303);
      expect(await env.db.knex('orders').where({ id: row.id }).first()).toMatchObject({
        quantity: 2,
        updated_by: 'admin:root',
      });
      const api = await client.request('POST', '/admin/crud/orders', {
        json: { product: 'chair' },
        headers: { 'x-csrf-token': client.csrf },
      });
      expect(api.status).toBe(201);
      expect(await env.db.knex('orders').where({ product: 'chair' }).first()).toMatchObject({
        created_by: 'admin:root',
      });
      // A CSV import creates its rows as the form does; the value a file gives an auto field
      // (an exported file has the column) is never written: the server stamps its own.
      const upload = (csv: string) => {
        const form = new FormData();
        form.append('csrf_token', client.csrf);
        form.append('file', new Blob([csv], { type: 'text/csv' }), 'orders.csv');
        return client.request('POST', '/admin/orders/import', { multipart: form });
      };
      expect((await upload('product,quantity,created_by\r\nstool,4,mallory\r\n')).status).toBe(303);
      expect(await env.db.knex('orders').where({ product: 'stool' })).toMatchObject([
        { quantity: 4, created_by: 'admin:root' },
      ]);
      // A soft delete from the list writes the delete auto fields.
      const { id: stool } = await env.db.knex('orders').where({ product: 'stool' }).first();
      const deleted = await client.request('DELETE', '/admin/orders/bulk-delete', {
        json: { ids: [stool] },
        headers: { 'x-csrf-token': client.csrf, accept: 'text/html' },
      });
      expect(deleted.status).toBe(200);
      expect(await env.db.knex('orders').where({ id: stool }).first()).toMatchObject({ deleted_by: 'admin:root' });
    });

    it("honours the model's declared filters and sorting on {mount}/crud/{model}, as the API does", async () => {
      await env.db.knex('orders').insert([
        { product: 'pen', status: 'paid', quantity: 9, created_at: new Date() },
        { product: 'ink', status: 'shipped', quantity: 5, created_at: new Date() },
      ]);
      const paid = await client.get('/admin/crud/orders?status=paid&sort=-quantity');
      expect(paid.status).toBe(200);
      expect(paid.json.data.map((r: { product: string }) => r.product)).toEqual(['pen', 'desk']);
      const many = await client.get('/admin/crud/orders?quantity__gte=5&sort=quantity');
      expect(many.json.data.map((r: { product: string }) => r.product)).toEqual(['ink', 'pen']);
      expect((await client.get('/admin/crud/orders?quantity__ilike=5')).status).toBe(400);
    });

    it("keeps the model's Idempotency-Key on {mount}/crud/{model}: a repeat is replayed, one row and one event", async () => {
      const create = () =>
        client.request('POST', '/admin/crud/orders', {
          json: { product: 'rug' },
          headers: { 'x-csrf-token': client.csrf, 'idempotency-key': 'one-rug' },
        });
      const [first, second] = [await create(), await create()];
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.json).toEqual(first.json);
      expect(await env.db.knex('orders').where({ product: 'rug' })).toHaveLength(1);
      const events = await env.db.knex('admin_events').where({ event_type: 'create', model: 'orders' });
      expect(events.filter((e) => JSON.parse(e.details).record.product === 'rug')).toHaveLength(1);
    });

    it('writes a keyed create, its key and its event together: an event that cannot be written takes back the row and the key', async () => {
      const create = () =>
        client.request('POST', '/admin/crud/orders', {
          json: { product: 'vase' },
          headers: { 'x-csrf-token': client.csrf, 'idempotency-key': 'one-vase' },
        });
      const column = (from: string, to: string) =>
        env.db.knex.schema.alterTable('admin_events', (t) => t.renameColumn(from, to));
      // The log still reads, but its insert fails, inside the write's transaction.
      await column('user_agent', 'user_agent_away');
      try {
        expect((await create()).status).toBe(500);
      } finally {
        await column('user_agent_away', 'user_agent');
      }
      expect(await env.db.knex('orders').where({ product: 'vase' })).toEqual([]);
      // The key's claim rolled back with the row: the retry creates it afresh, not a replay.
      const retried = await create();
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(await env.db.knex('orders').where({ product: 'vase' })).toHaveLength(1);
      const events = await env.db.knex('admin_events').where({ event_type: 'create', model: 'orders' });
      expect(events.filter((e) => JSON.parse(e.details).record.product === 'vase')).toHaveLength(1);
    });
  });
}
