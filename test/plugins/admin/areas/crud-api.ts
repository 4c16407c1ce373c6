import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { ADMIN, seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** `{mount}/crud/{model}`: the generated REST endpoints under the admin session and CSRF. */
export function crudApiArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin REST endpoints on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let uids: string[];
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { eventIntegration: true });
      uids = await seed(env.db, 3);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    const json = (method: string, path: string, body?: unknown, csrf = true) =>
      client.request(method, path, { json: body, headers: csrf ? { 'x-csrf-token': client.csrf } : {} });

    it('answers 401 JSON without an admin session', async () => {
      const answer = await env.client().get('/admin/crud/items');
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ detail: 'Not authenticated' });
    });

    it('reads with the API wire format under the admin session', async () => {
      const list = await client.get('/admin/crud/items');
      expect(list.status).toBe(200);
      expect(list.json.data).toHaveLength(3);
      expect(list.json.total_count).toBe(3);
      expect((await client.get(`/admin/crud/gadgets/${uids[0]}`)).json).toMatchObject({ uid: uids[0] });
    });

    it('never answers, sorts or pages by a hidden column such as the password hash', async () => {
      const list = await client.get('/admin/crud/users');
      expect(list.status).toBe(200);
      expect(list.text).not.toContain('hashed_password');
      for (const query of ['sort=-hashed_password', 'sort=hashed_password&limit=1&cursor=']) {
        const answer = await client.get(`/admin/crud/users?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.text).not.toContain('$2');
      }
    });

    it('refuses an unsafe request without the CSRF header with 403 and writes nothing', async () => {
      const answer = await json('POST', '/admin/crud/items', { name: 'forged' }, false);
      expect(answer.status).toBe(403);
      expect(await env.db.knex('items').where({ name: 'forged' }).first()).toBeUndefined();
    });

    it('creates, updates and deletes with the header, as the allowed actions say', async () => {
      expect((await json('POST', '/admin/crud/items', { name: 'via api' })).status).toBeLessThan(300);
      const row = await env.db.knex('items').where({ name: 'via api' }).first();
      expect((await json('PATCH', `/admin/crud/items/${row.id}`, { price: 5 })).status).toBe(200);
      expect((await env.db.knex('items').where({ id: row.id }).first()).price).toBe(5);
      expect((await json('DELETE', `/admin/crud/items/${row.id}`)).status).toBe(200);
      expect(Boolean((await env.db.knex('items').where({ id: row.id }).first()).is_deleted)).toBe(true);
    });

    it("logs its writes as the forms do: the created record, the update's diff, the deleted row; a refused write is not logged", async () => {
      const created = await json('POST', '/admin/crud/items', { name: 'logged', price: 2 });
      expect(created.status).toBeLessThan(300);
      const row = await env.db.knex('items').where({ name: 'logged' }).first();
      expect((await json('PATCH', `/admin/crud/items/${row.id}`, { price: 7 })).status).toBe(200);
      expect((await json('PATCH', '/admin/crud/items/424242', { price: 7 })).status).toBe(404);
      expect((await json('DELETE', `/admin/crud/items/${row.id}`)).status).toBe(200);
      const events = (
        await env.db
          .knex('admin_events')
          .where({ model: 'items' })
          .whereIn('event_type', ['create', 'update', 'delete'])
          .orderBy('id')
          .select('event_type', 'username', 'record_id', 'details')
      )
        .map((e) => ({ ...e, details: JSON.parse(e.details) }))
        .filter((e) => e.details.record?.name === 'logged' || e.record_id === String(row.id));
      expect(events.map((e) => e.event_type)).toEqual(['create', 'update', 'delete']);
      expect(events.every((e) => e.username === ADMIN.username)).toBe(true);
      expect(events[0].details.record).toMatchObject({ name: 'logged', price: 2 });
      expect(events[1]).toMatchObject({
        record_id: String(row.id),
        details: { changes: { price: { before: 2, after: 7 } } },
      });
      expect(events[2]).toMatchObject({
        record_id: String(row.id),
        details: { record: { id: row.id, name: 'logged', price: 7 } },
      });
    });

    it('offers no route beyond the allowed actions, nor writes that would skip password hashing', async () => {
      expect((await json('POST', '/admin/crud/gadgets', { uid: uids[0], label: 'x' })).status).toBeGreaterThanOrEqual(
        404,
      );
      expect(
        (await json('POST', '/admin/crud/users', { username: 'x', password: 'a long enough secret' })).status,
      ).toBeGreaterThanOrEqual(404);
      expect((await client.get('/admin/crud/users')).status).toBe(200);
    });

    it('writes and logs together: an event that cannot be written takes the write back', async () => {
      const [id] = await env.db.knex('items').insert({ name: 'api row', price: 1, created_at: new Date() }, ['id']);
      const rowId = Number(typeof id === 'object' ? id.id : id);
      const row = async () => env.db.knex('items').where({ id: rowId }).first();
      const before = await row();
      const logged = async (type: string) =>
        (await env.db.knex('admin_events').where({ event_type: type, model: 'items' }).orderBy('id'))
          .map((e) => ({ ...e, details: JSON.parse(e.details) }))
          .filter((e) => e.record_id === String(rowId) || e.details?.record?.name === 'api made');
      // The log still reads, but its insert fails, inside the write's transaction.
      const column = (from: string, to: string) =>
        env.db.knex.schema.alterTable('admin_events', (t) => t.renameColumn(from, to));
      await column('user_agent', 'user_agent_away');
      try {
        expect((await json('POST', '/admin/crud/items', { name: 'api made', price: 3 })).status).toBe(500);
        expect((await json('PATCH', `/admin/crud/items/${rowId}`, { price: 998 })).status).toBe(500);
        expect((await json('DELETE', `/admin/crud/items/${rowId}`)).status).toBe(500);
      } finally {
        await column('user_agent_away', 'user_agent');
      }
      expect(await env.db.knex('items').where({ name: 'api made' }).first()).toBeUndefined();
      expect(await row()).toEqual(before);
      for (const type of ['create', 'update', 'delete']) expect(await logged(type)).toEqual([]);
      expect((await json('POST', '/admin/crud/items', { name: 'api made', price: 3 })).status).toBe(201);
      expect(await env.db.knex('items').where({ name: 'api made' }).first()).toMatchObject({ price: 3 });
      expect(await logged('create')).toMatchObject([{ model: 'items', details: { record: { name: 'api made' } } }]);
      expect((await json('PATCH', `/admin/crud/items/${rowId}`, { price: 998 })).status).toBe(200);
      expect((await row()).price).toBe(998);
      expect(await logged('update')).toMatchObject([{ details: { changes: { price: { before: 1, after: 998 } } } }]);
      expect((await json('DELETE', `/admin/crud/items/${rowId}`)).status).toBe(200);
      expect(Boolean((await row()).is_deleted)).toBe(true);
      expect(await logged('delete')).toMatchObject([{ details: { record: { name: 'api row', price: 998 } } }]);
    });
  });
}
