import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { ADMIN, seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** The event log: who signed in, changed, deleted and viewed what, and its page. */
export function eventsArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin event log on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { eventIntegration: true });
      await seed(env.db, 3);
      await env.client().login(ADMIN.username, 'a wrong password here');
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    const events = async (type: string) =>
      (await env.db.knex('admin_events').where({ event_type: type }).orderBy('id')).map((e) => ({
        ...e,
        details: e.details ? JSON.parse(e.details) : null,
      }));

    it('records sign-ins and failed sign-ins with the user, address and browser', async () => {
      const [failed] = await events('sign_in_failed');
      expect(failed).toMatchObject({
        username: ADMIN.username,
        admin_user_id: null,
        ip_address: expect.stringContaining('127.0.0.1'),
      });
      const signIns = await events('sign_in');
      expect(signIns.at(-1)).toMatchObject({
        username: ADMIN.username,
        admin_user_id: expect.anything(),
        user_agent: expect.any(String),
      });
    });

    it('records a create with the record, an update with a before/after diff, a delete with the record as it was, and list views', async () => {
      expect((await client.postForm('/admin/items/form_create', { name: 'logged', price: '4' })).status).toBe(303);
      const [created] = await events('create');
      expect(created).toMatchObject({ model: 'items', details: { record: { name: 'logged', price: 4 } } });
      const id = created.record_id;
      expect((await client.postForm(`/admin/items/form_update/${id}`, { price: '6' })).status).toBe(303);
      const [updated] = await events('update');
      expect(updated.details.changes.price).toEqual({ before: 4, after: 6 });
      expect(updated.details.changes).not.toHaveProperty('name');
      const deleted = await client.request('DELETE', '/admin/items/bulk-delete', {
        json: { ids: [Number(id)] },
        headers: { 'x-csrf-token': client.csrf },
      });
      expect(deleted.status).toBe(200);
      const [removed] = await events('delete');
      expect(removed).toMatchObject({
        model: 'items',
        record_id: String(id),
        details: { record: { name: 'logged', price: 6 } },
      });
      await client.get('/admin/items/');
      expect((await events('view')).some((e) => e.model === 'items')).toBe(true);
    });

    it('reverts an update from its event, writing back the values it replaced, and logs the revert', async () => {
      expect((await client.postForm('/admin/items/form_update/1', { name: 'renamed', price: '50' })).status).toBe(303);
      const update = (await events('update')).at(-1)!;
      expect(update.details.changes.name).toEqual({ before: 'item-01', after: 'renamed' });
      expect((await client.request('POST', `/admin/management/events/${update.id}/revert`, { form: {} })).status).toBe(
        403,
      );
      expect((await client.postForm(`/admin/management/events/${update.id}/revert`, {})).status).toBe(303);
      expect(await env.db.knex('items').where({ id: 1 }).first()).toMatchObject({ name: 'item-01', price: 1 });
      const revert = (await events('update')).at(-1)!;
      expect(revert.details).toMatchObject({
        revertOf: update.id,
        changes: { name: { before: 'renamed', after: 'item-01' } },
      });
      const [signIn] = await events('sign_in');
      expect((await client.postForm(`/admin/management/events/${signIn.id}/revert`, {})).status).toBe(400);
      expect((await client.postForm('/admin/management/events/99999999/revert', {})).status).toBe(404);
    });

    it('shows an update as a table of field, before and after, and the browser as name and system', async () => {
      const agent =
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
      const answer = await client.request('POST', '/admin/items/form_update/2', {
        form: { csrf_token: client.csrf, price: '77', in_stock: 'true' },
        headers: { 'user-agent': agent },
      });
      expect(answer.status).toBe(303);
      const page = await client.get('/admin/management/events?type=update');
      const row = /<tr data-event="\d+">(.*?)<\/tr><\/tbody><\/table><\/td>.*?<\/tr>/s.exec(page.text)![0];
      expect(row).toContain(
        '<thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>',
      );
      expect(row).toContain('<tr><th scope="row">Price</th><td>2</td><td>77</td></tr>');
      expect(row).toContain(
        '<tr><th scope="row">In stock</th><td><span class="badge no">No</span></td><td><span class="badge yes">Yes</span></td></tr>',
      );
      expect(row).toContain(`<td title="${agent.replace(/\(/g, '(')}">Chrome 131 on Linux</td>`);
      expect(row).not.toContain('{&quot;');
    });

    it('shows the latest events on the dashboard, and a chart of writes a day per model in one grouped query', async () => {
      // Besides today's create, update and delete of an item: two creates two days ago, one
      // past the 30 days, and a sign-in, which no chart counts.
      const at = (days: number) => Date.now() - days * 86_400_000;
      const row = (type: string, days: number) => ({ event_type: type, model: 'items', created_at: at(days) });
      const extra = [row('create', 2), row('create', 2), row('create', 40), row('sign_in', 2)];
      await env.db.knex('admin_events').insert(extra);
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      let page;
      try {
        page = await client.get('/admin/');
      } finally {
        env.db.knex.removeListener('query', listen);
        await env.db.knex('admin_events').where('created_at', '<', at(1)).delete();
      }
      expect(page.text).toContain('Latest events');
      expect(page.text).toMatch(
        /<tr><td><time datetime="[^"]+Z" title="[^"]+">[^<]+<\/time><\/td><td data-type="(view|update|delete|create)">(View|Update|Delete|Create)<\/td><td>root<\/td><td>items<\/td>/,
      );
      const onLog = queries.filter((sql) => /admin_events/.test(sql));
      expect(onLog.filter((sql) => /group by/i.test(sql))).toHaveLength(1);
      expect(onLog.length).toBeLessThanOrEqual(3);
      const chart =
        /<svg class="activity" role="img" aria-labelledby="activity-items-title activity-items-desc"[\s\S]*?<\/svg>/.exec(
          page.text,
        )?.[0];
      expect(chart).toContain('<title id="activity-items-title">Items: changes a day over the last 30 days</title>');
      expect(chart).toMatch(
        /<desc id="activity-items-desc">3 created, \d+ updated, 1 deleted in all; the busiest day, [^,]+, had \d+\.<\/desc>/,
      );
      // A bar a day: 30 titles, two days ago with its two creates, today with each type (the earlier cases' writes).
      expect(chart!.match(/<g><title>/g)).toHaveLength(30);
      expect(chart).toMatch(/<g><title>[^<]+: 2 created, 0 updated, 0 deleted<\/title>/);
      expect(chart).toMatch(
        /<g><title>[^<]+: 1 created, [1-9]\d* updated, 1 deleted<\/title>(<rect[^>]*><\/rect>){4}<\/g><text/,
      );
      expect(page.text).toContain('aria-labelledby="activity-gadgets-title activity-gadgets-desc"');
      expect(page.text).toContain('No creates, updates or deletes in these days.');
    });

    it('never logs a password or its hash', async () => {
      expect(
        (await client.postForm('/admin/users/form_create', { username: 'carol', password: 'carol secret passphrase' }))
          .status,
      ).toBe(303);
      const [user] = await env.db.knex('app_users').where({ username: 'carol' });
      expect(
        (await client.postForm(`/admin/users/form_update/${user.id}`, { password: 'carol new passphrase' })).status,
      ).toBe(303);
      const text = JSON.stringify(await env.db.knex('admin_events').select('*'));
      expect(text).not.toContain('passphrase');
      expect(text).not.toContain(user.hashed_password);
      expect(text).not.toContain('hashed_password');
    });

    it('counts refused sign-ins on a locked name in one event instead of a row each', async () => {
      const before = await env.db.knex('admin_events').count({ n: '*' }).first();
      let status = 0;
      for (let i = 0; i < 12 && status !== 429; i++)
        status = (await env.client().login('lockedname', 'a wrong password here')).status;
      expect(status).toBe(429);
      for (let i = 0; i < 20; i++)
        expect((await env.client().login('lockedname', 'a wrong password here')).status).toBe(429);
      const rows = (await events('sign_in_failed')).filter((e) => e.username === 'lockedname');
      const locked = rows.filter((e) => e.details?.locked);
      expect(locked).toHaveLength(1);
      expect(locked[0].repeats).toBe(21);
      // The failures that checked a password, from one address, are one event too.
      const checked = rows.filter((e) => !e.details?.locked);
      expect(checked).toHaveLength(1);
      expect(checked[0].repeats).toBeGreaterThanOrEqual(1);
      const after = await env.db.knex('admin_events').count({ n: '*' }).first();
      expect(Number(after?.n) - Number(before?.n)).toBe(2);
      const page = await client.get('/admin/management/events?username=lockedname&type=sign_in_failed');
      expect(page.text).toContain('×21');
    });

    it('deletes refused sign-ins past the retention as new ones come, and keeps every other event', async () => {
      const old = Date.now() - 31 * 86_400_000;
      const row = { username: 'long-ago', ip_address: '127.0.0.1', created_at: old };
      await env.db.knex('admin_events').insert([
        { ...row, event_type: 'sign_in_failed' },
        { ...row, event_type: 'sign_out' },
      ]);
      expect((await env.client().login('someone-new', 'a wrong password here')).status).toBe(401);
      const left = await env.db.knex('admin_events').where({ username: 'long-ago' }).pluck('event_type');
      expect(left).toEqual(['sign_out']);
      await env.db.knex('admin_events').where({ username: 'long-ago' }).delete();
      expect((await events('sign_in_failed')).some((e) => e.username === 'someone-new')).toBe(true);
    });

    it("records a write's event in its transaction: an event that cannot be written takes the write back", async () => {
      const before = await env.db.knex('items').where({ id: 2 }).first();
      const count = async () => Number((await env.db.knex('items').count({ n: '*' }).first())?.n);
      const rows = await count();
      const [update] = (await events('update')).filter((e) => e.record_id === '2' && e.details.changes.price);
      const trashed = async () => (await env.db.knex('items').where({ is_deleted: true }).pluck('id')).map(Number);
      const inTrash = await trashed();
      expect(inTrash.length).toBeGreaterThan(0);
      const csv = new FormData();
      csv.append('csrf_token', client.csrf);
      csv.append('file', new Blob(['name\nimported\n'], { type: 'text/csv' }), 'items.csv');
      // The log still reads, but its insert fails after the row's write, in the same transaction.
      const column = (from: string, to: string) =>
        env.db.knex.schema.alterTable('admin_events', (t) => t.renameColumn(from, to));
      await column('user_agent', 'user_agent_away');
      try {
        expect((await client.postForm('/admin/items/form_create', { name: 'never kept', price: '3' })).status).toBe(
          500,
        );
        expect((await client.postForm('/admin/items/form_update/2', { price: '999' })).status).toBe(500);
        expect((await client.postForm(`/admin/management/events/${update.id}/revert`, {})).status).toBe(500);
        const ids = { json: { ids: [2] }, headers: { 'x-csrf-token': client.csrf } };
        expect((await client.request('DELETE', '/admin/items/bulk-delete', ids)).status).toBe(500);
        expect((await client.postForm('/admin/items/trash/restore', { ids: String(inTrash[0]) })).status).toBe(500);
        expect((await client.request('POST', '/admin/items/import', { multipart: csv })).status).toBe(500);
      } finally {
        await column('user_agent_away', 'user_agent');
      }
      expect(await count()).toBe(rows);
      expect(await env.db.knex('items').where({ name: 'never kept' }).first()).toBeUndefined();
      expect(await env.db.knex('items').where({ id: 2 }).first()).toEqual(before);
      expect(await trashed()).toEqual(inTrash);
    });

    it('lists events newest first, filtered by type, admin user and dates, and records sign-outs', async () => {
      const page = await client.get('/admin/management/events');
      expect(page.status).toBe(200);
      const ids = [...page.text.matchAll(/<tr data-event="(\d+)"/g)].map((m) => Number(m[1]));
      expect(ids.length).toBeGreaterThan(3);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const creates = await client.get('/admin/management/events?type=create');
      expect([...creates.text.matchAll(/<td data-type="create">Create<\/td>/g)]).toHaveLength(2);
      expect([
        ...(await client.get('/admin/management/events?username=nobody')).text.matchAll(/<tr data-event/g),
      ]).toHaveLength(0);
      expect([
        ...(await client.get('/admin/management/events?from=2999-01-01')).text.matchAll(/<tr data-event/g),
      ]).toHaveLength(0);
      const today = new Date().toISOString().slice(0, 10);
      expect([
        ...(await client.get(`/admin/management/events?from=${today}&to=${today}&type=create`)).text.matchAll(
          /<tr data-event/g,
        ),
      ]).toHaveLength(2);
      expect((await client.get('/admin/management/events?type=bogus')).status).toBe(422);
      expect((await client.get('/admin/management/events?from=yesterday')).status).toBe(422);
      // PostgreSQL cannot hold NUL in text: refused before the query, on every engine alike.
      expect((await client.get('/admin/management/events?username=a%00b')).status).toBe(422);
      await client.get('/admin/logout');
      expect((await events('sign_out')).at(-1)).toMatchObject({ username: ADMIN.username });
    });
  });
}
