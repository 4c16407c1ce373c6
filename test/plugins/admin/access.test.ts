// The admin under the models' access policies: an admin user holding roles sees the rows,
// counts and fields its roles' policy allows, is offered only the actions it may perform,
// and is refused (403, nothing written) when it forces one, on the pages and on /crud. An
// admin user without roles keeps full access; roles are given on the roles page, each
// change an event. On SQLite and the first server engine of the run, on Koa.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES, SERVER_ENGINES } from '../../fixtures/db';
import { startAdminApp, type AdminEnv, type Client } from './fixture';
import { VIEWER, catalogue, memoMigrations, memoView, pinView, seedMemos } from './memos';

const engines = ENGINES.filter((e) => e === 'sqlite' || e === SERVER_ENGINES[0]);

for (const engine of engines) {
  describe(`admin users with roles on koa / ${engine}`, () => {
    let env: AdminEnv;
    let root: Client;
    let viewer: Client;
    let ids: { shared: number; hidden: number };
    beforeAll(async () => {
      env = await startAdminApp(
        koaHarness,
        engine,
        {
          eventIntegration: true,
          access: { roles: catalogue },
          models: { memos: memoView, pins: pinView },
        },
        { migrations: [memoMigrations] },
      );
      ids = await seedMemos(env.db.knex);
      await env.plugin.createAdminUser(VIEWER.username, VIEWER.password);
      root = await env.signedIn();
      const vera = await env.db.knex('admin_users').where({ username: VIEWER.username }).first('id');
      // The roles page gives the role; an unknown role is a 422 and changes nothing.
      const roles = await root.get('/admin/management/roles/');
      expect(roles.status).toBe(200);
      expect(roles.text).toContain('memos:read, memos:write');
      expect((await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'owner' })).status).toBe(
        422,
      );
      expect((await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'viewer' })).status).toBe(
        303,
      );
      viewer = env.client();
      expect((await viewer.login(VIEWER.username, VIEWER.password)).status).toBe(303);
    });
    afterAll(async () => env?.close());

    it('shows a viewer the rows, counts and fields its policy allows, and offers no write', async () => {
      const dashboard = await viewer.get('/admin/');
      expect(dashboard.text).toMatch(/href="\/admin\/memos\/"/);
      expect(dashboard.text).not.toContain('/admin/management/admin-users');
      expect(dashboard.text).not.toContain('/admin/management/roles');
      const list = await viewer.get('/admin/memos/');
      expect(list.status).toBe(200);
      expect(list.text).toContain('shared memo');
      expect(list.text).not.toContain('private memo');
      expect(list.text).not.toContain('shared-secret');
      expect(list.text).toMatch(/1 rows · page 1 of 1/);
      expect(list.text).not.toContain('/admin/memos/create_page');
      expect(list.text).not.toContain('Delete selected');
      expect(list.text).not.toContain('/admin/memos/update/');
      // A search or sort on a withheld column is refused as one the list does not have.
      expect((await viewer.get('/admin/memos/?column-to-search=secret&search=shared')).status).toBe(422);
      expect((await viewer.get('/admin/memos/?sort=secret')).status).toBe(400);
      expect((await root.get('/admin/memos/?column-to-search=secret&search=shared')).status).toBe(200);
      const csv = await viewer.get('/admin/memos/export');
      expect(csv.status).toBe(200);
      expect(csv.text).toContain('shared memo');
      expect(csv.text).not.toContain('private memo');
      expect(csv.text).not.toContain('secret');
      // Another view's references to memos: labelled and offered only where the memos' list rule reaches.
      const pins = await viewer.get('/admin/pins/');
      expect(pins.status).toBe(200);
      expect(pins.text).toContain('shared memo');
      expect(pins.text).not.toContain('private memo');
      const offered = await viewer.get('/admin/pins/lookup/memo_id?q=memo');
      expect(offered.json.options).toEqual([{ value: String(ids.shared), label: 'shared memo' }]);
      expect((await root.get('/admin/pins/lookup/memo_id?q=memo')).json.options).toHaveLength(2);
      // The admin with full access sees everything, as before roles.
      const all = await root.get('/admin/memos/');
      expect(all.text).toContain('private memo');
      expect(all.text).toContain('private-secret');
    });

    it('refuses a viewer every forced write with 403 and writes nothing', async () => {
      const before = await env.db.knex('memos').orderBy('id').select('*');
      expect((await viewer.get('/admin/memos/create_page')).status).toBe(403);
      expect((await viewer.postForm('/admin/memos/form_create', { title: 'forged' })).status).toBe(403);
      expect((await viewer.get(`/admin/memos/update/${ids.shared}`)).status).toBe(403);
      expect((await viewer.postForm(`/admin/memos/form_update/${ids.shared}`, { title: 'forged' })).status).toBe(403);
      const bulk = await viewer.request('DELETE', '/admin/memos/bulk-delete', {
        json: { ids: [ids.shared] },
        headers: { 'x-csrf-token': viewer.csrf },
      });
      expect(bulk.status).toBe(403);
      const api = (method: string, path: string, body?: unknown) =>
        viewer.request(method, path, { json: body, headers: { 'x-csrf-token': viewer.csrf } });
      expect((await api('POST', '/admin/crud/memos', { title: 'forged' })).status).toBe(403);
      expect((await api('PATCH', `/admin/crud/memos/${ids.shared}`, { title: 'forged' })).status).toBe(403);
      expect((await api('DELETE', `/admin/crud/memos/${ids.shared}`)).status).toBe(403);
      expect((await viewer.get('/admin/management/admin-users/')).status).toBe(403);
      expect((await viewer.postForm('/admin/management/roles/admin-users/1', { roles: 'editor' })).status).toBe(403);
      expect(await env.db.knex('memos').orderBy('id').select('*')).toEqual(before);
      // The refusal's page is in the reader's language; JSON keeps the English detail.
      const german = await viewer.get('/admin/memos/create_page', { 'Accept-Language': 'de' });
      expect(german.text).toContain('Ihre Rolle erlaubt das nicht');
      expect(german.text).not.toContain('Your role');
      const json = await viewer.get('/admin/memos/create_page', {
        'Accept-Language': 'de',
        Accept: 'application/json',
      });
      expect(json.json.detail).toBe('Your role does not allow this');
      // /crud reads under the same rules: outside the read rows a 404, the secret never answered.
      const listed = await viewer.get('/admin/crud/memos');
      expect(listed.json.total_count).toBe(1);
      expect(listed.text).not.toContain('secret');
      expect((await viewer.get(`/admin/crud/memos/${ids.hidden}`)).status).toBe(404);
      expect((await viewer.get('/admin/crud/memos?sort=secret')).status).toBe(400);
    });

    it('shows a writer only the fields it may read and set, on the rows it reaches', async () => {
      const vera = await env.db.knex('admin_users').where({ username: VIEWER.username }).first('id');
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'writer' });
      const page = await viewer.get(`/admin/memos/update/${ids.shared}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('name="title"');
      expect(page.text).not.toContain('name="secret"');
      expect(page.text).not.toContain('shared-secret');
      expect((await viewer.get(`/admin/memos/update/${ids.hidden}`)).status).toBe(404);
      // A withheld field sent anyway is not written; the rest is.
      const posted = await viewer.postForm(`/admin/memos/form_update/${ids.shared}`, {
        title: 'retitled',
        secret: 'forged',
      });
      expect(posted.status).toBe(303);
      expect(await env.db.knex('memos').where({ id: ids.shared }).first()).toMatchObject({
        title: 'retitled',
        secret: 'shared-secret',
      });
      // Deleting is the editor's: not offered, and refused when forced.
      expect((await viewer.get('/admin/memos/')).text).not.toContain('Delete selected');
      // The trash holds the deleted rows its list rule reaches; it restores those its restore
      // rule reaches (another is a 404, its existence not revealed) and purges none.
      await env.db.knex('memos').insert([
        { title: 'binned shared', shared: true, is_deleted: true },
        { title: 'binned private', shared: false, is_deleted: true },
      ]);
      const binned = Object.fromEntries(
        (await env.db.knex('memos').where({ is_deleted: true }).select('id', 'title')).map((r) => [r.title, r.id]),
      );
      const trash = await viewer.get('/admin/memos/trash');
      expect(trash.status).toBe(200);
      expect(trash.text).toContain('binned shared');
      expect(trash.text).not.toContain('binned private');
      const restore = (id: number) => viewer.postForm('/admin/memos/trash/restore', { ids: String(id) });
      expect((await restore(binned['binned private'])).status).toBe(404);
      expect((await viewer.postForm('/admin/memos/trash/purge', { ids: String(binned['binned shared']) })).status).toBe(
        403,
      );
      expect((await restore(binned['binned shared'])).status).toBe(303);
      expect(await env.db.knex('memos').where({ is_deleted: true }).pluck('title')).toEqual(['binned private']);
      await env.db.knex('memos').whereIn('title', ['binned shared', 'binned private']).delete();
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'viewer' });
    });

    it('applies a role change on the next request, and logs it', async () => {
      const vera = await env.db.knex('admin_users').where({ username: VIEWER.username }).first('id');
      expect((await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'editor' })).status).toBe(
        303,
      );
      const list = await viewer.get('/admin/memos/');
      expect(list.text).toContain('private memo');
      expect(list.text).toContain('/admin/memos/create_page');
      const page = await viewer.get(`/admin/memos/update/${ids.hidden}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('name="secret"');
      expect((await viewer.postForm(`/admin/memos/form_update/${ids.hidden}`, { title: 'edited' })).status).toBe(303);
      expect((await env.db.knex('memos').where({ id: ids.hidden }).first()).title).toBe('edited');
      const events = await root.get('/admin/management/events?type=role_change');
      expect(events.status).toBe(200);
      expect(events.text).toContain('role_change');
      // The roles page and the event type in German: no English message left.
      const DE = { 'Accept-Language': 'de' };
      const roles = await root.get('/admin/management/roles/', DE);
      expect(roles.text).toContain('<h1>Rollen</h1>');
      expect(roles.text).toContain('Berechtigungen');
      expect(roles.text).toContain('vollen Zugriff');
      for (const english of ['Permissions', 'Admin users', 'full access', '>Save<', '>Roles<'])
        expect(roles.text).not.toContain(english);
      expect((await root.get('/admin/management/events?type=role_change', DE)).text).toContain('Rollenänderung');
      const logged = await env.db.knex('admin_events').where({ event_type: 'role_change' }).orderBy('id');
      expect(logged.map((e) => JSON.parse(e.details).roles)).toEqual([
        { before: [], after: ['viewer'] },
        { before: ['viewer'], after: ['writer'] },
        { before: ['writer'], after: ['viewer'] },
        { before: ['viewer'], after: ['editor'] },
      ]);
      // Back to no roles: full access again.
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, {});
      expect((await viewer.get('/admin/management/admin-users/')).status).toBe(200);
    });

    it('shows a role user the events of rows it may read, without withheld fields, and reverts under the update rule', async () => {
      const vera = await env.db.knex('admin_users').where({ username: VIEWER.username }).first('id');
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'writer' });
      const patch = (id: number, title: string) =>
        root.request('PATCH', `/admin/crud/memos/${id}`, { json: { title }, headers: { 'x-csrf-token': root.csrf } });
      const { title: original } = await env.db.knex('memos').where({ id: ids.shared }).first('title');
      expect((await patch(ids.shared, 'shared v2')).status).toBe(200);
      expect((await patch(ids.hidden, 'private v2')).status).toBe(200);
      // A logged value of a field the role may not read (an app's log written before it was withheld).
      await env.db.knex('admin_events').insert({
        event_type: 'update',
        username: 'admin',
        model: 'memos',
        record_id: String(ids.shared),
        details: JSON.stringify({ changes: { secret: { before: 'old-withheld', after: 'new-withheld' } } }),
        created_at: Date.now(),
      });
      const logged = async (title: string) =>
        (await env.db.knex('admin_events').where({ model: 'memos' }).where('details', 'like', `%${title}%`).first('id'))
          .id;
      const [sharedEvent, hiddenEvent, secretEvent] = [
        await logged('shared v2'),
        await logged('private v2'),
        await logged('old-withheld'),
      ];
      expect((await root.get('/admin/management/events')).text).toContain('old-withheld');
      const dashboard = await viewer.get('/admin/');
      expect(dashboard.text).toContain('href="/admin/management/events"');
      expect(dashboard.text).not.toContain('/admin/management/admin-users');
      const events = await viewer.get('/admin/management/events');
      expect(events.status).toBe(200);
      expect(events.text).toContain('shared v2');
      expect(events.text).not.toContain('private v2');
      expect(events.text).not.toContain('withheld');
      expect(events.text).not.toContain('data-type="role_change"');
      // The total counts what is listed: the row rule is in the log's own statement.
      const listed = events.text.match(/<tr data-event=/g)?.length ?? 0;
      expect(events.text).toContain(`${listed} events · page 1 of 1`);
      expect(events.text).toContain(`/admin/management/events/${sharedEvent}/revert`);
      expect(events.text).not.toContain(`/admin/management/events/${secretEvent}/revert`);
      // A revert of a row it may not read is not found; one writing a withheld field is refused.
      const revert = (id: number) => viewer.postForm(`/admin/management/events/${id}/revert`, {});
      const before = await env.db.knex('memos').orderBy('id').select('*');
      expect((await revert(hiddenEvent)).status).toBe(404);
      expect((await revert(secretEvent)).status).toBe(403);
      expect(await env.db.knex('memos').orderBy('id').select('*')).toEqual(before);
      expect((await revert(sharedEvent)).status).toBe(303);
      expect((await env.db.knex('memos').where({ id: ids.shared }).first()).title).toBe(original);
      // A viewer may not update: no revert offered, a forced one refused; management stays closed.
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'viewer' });
      const read = await viewer.get('/admin/management/events');
      expect(read.text).toContain('shared v2');
      expect(read.text).not.toContain('/revert');
      expect((await revert(sharedEvent)).status).toBe(403);
      expect((await env.db.knex('memos').where({ id: ids.shared }).first()).title).toBe(original);
      expect((await viewer.get('/admin/management/admin-users/')).status).toBe(403);
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, {});
    });

    it('offers a create only a role can complete, and imports only rows its create rule allows', async () => {
      const vera = await env.db.knex('admin_users').where({ username: VIEWER.username }).first('id');
      const count = async () => Number((await env.db.knex('memos').count({ n: '*' }).first())!.n);
      const upload = (csv: string) => {
        const form = new FormData();
        form.append('csrf_token', viewer.csrf);
        form.append('file', new Blob([csv], { type: 'text/csv' }), 'memos.csv');
        return viewer.request('POST', '/admin/memos/import', { multipart: form });
      };
      const memos = await count();
      // A clerk may create but not set the title a memo needs: no Create, the list says why, a forced one is a 403.
      expect((await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'clerk' })).status).toBe(
        303,
      );
      const list = await viewer.get('/admin/memos/');
      expect(list.text).not.toContain('/admin/memos/create_page');
      expect(list.text).not.toContain('/admin/memos/import');
      expect(list.text).toContain('Your role may not set a field a new row needs');
      const page = await viewer.get('/admin/memos/create_page');
      expect(page.status).toBe(403);
      expect(page.text).toContain('Your role may not set a field a new row needs');
      expect((await viewer.get('/admin/memos/create_page', { 'Accept-Language': 'de' })).text).toContain(
        'das ein neuer Eintrag braucht',
      );
      expect((await viewer.postForm('/admin/memos/form_create', { shared: 'on' })).status).toBe(403);
      expect((await upload('shared\r\ntrue\r\n')).status).toBe(403);
      // A writer imports shared memos only: a file with one other row, or a withheld column, writes nothing.
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'writer' });
      expect((await viewer.get('/admin/memos/')).text).toContain('/admin/memos/import');
      const outside = await upload('title,shared\r\nimported shared,true\r\nimported private,false\r\n');
      expect([403, 422]).toContain(outside.status);
      expect((await upload('title,shared,secret\r\nimported shared,true,forged\r\n')).status).toBe(422);
      expect(await count()).toBe(memos);
      expect((await upload('title,shared\r\nimported shared,true\r\n')).status).toBe(303);
      expect(await env.db.knex('memos').where({ title: 'imported shared' }).first()).toMatchObject({
        shared: expect.anything(),
        secret: null,
      });
      await env.db.knex('memos').where({ title: 'imported shared' }).delete();
      await root.postForm(`/admin/management/roles/admin-users/${vera.id}`, {});
    });
  });
}
