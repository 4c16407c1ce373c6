import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../plugins/account/fixture';
import { ENGINES } from '../fixtures/db';
import { Client as AdminClient } from '../plugins/admin/fixture';
import { ADMIN_PASSWORD, send, startExample, type ExampleServer } from './example-server';

const NOTES = '/api/v1/notes/';

// The example's notes under their access policy: owners, shared notes, an editor's
// review, an admin's hard delete, and an API key with `notes:read` only.
describe.each(ENGINES)('example app /api/v1/notes on %s', (engine) => {
  let ex: ExampleServer;
  let ann: Client; // viewer
  let ben: Client; // no role
  let eve: Client; // editor
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ex = await startExample(engine, { users: ['ann', 'ben', 'eve'], build: { rateLimit: { defaultLimit: 100_000 } } });
    // Roles are set over HTTP by a superuser (the first superuser holds `admin`).
    for (const [name, role] of [
      ['ann', 'viewer'],
      ['eve', 'editor'],
    ] as const) {
      const set = await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids[name]}/roles`, { roles: [role] });
      expect(set.body).toEqual({ id: ex.ids[name], roles: [role] });
    }
    [ann, ben, eve] = await Promise.all(['ann', 'ben', 'eve'].map((name) => ex.signedIn(name)));
    expect((await ex.admin.get('/api/v1/users/me')).body.roles).toEqual(['admin']);
    expect((await send(ben, 'PUT', `/api/v1/users/${ex.ids.ben}/roles`, { roles: ['admin'] })).status).toBe(403);
    for (const [key, who, shared] of [
      ['annPrivate', ann, false],
      ['annShared', ann, true],
      ['benPrivate', ben, false],
    ] as const) {
      const created = await send(who, 'POST', NOTES, { title: key, body: 'text', shared });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.owner_id).toBe(ex.ids[who === ann ? 'ann' : 'ben']);
      ids[key] = created.body.id;
    }
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('answers 404 for setting the roles of a user that does not exist, even to none', async () => {
    for (const id of ['%00', '0', '999999', 'abc']) {
      const set = await send(ex.admin, 'PUT', `/api/v1/users/${id}/roles`, { roles: [] });
      expect(set.status, id).toBe(404);
    }
    const none = await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ben}/roles`, { roles: [] });
    expect(none.body).toEqual({ id: ex.ids.ben, roles: [] });
  });

  it('lists and counts only what the caller may see; 401 anonymous', async () => {
    expect((await ex.client().get(NOTES)).status).toBe(401);
    const benList = await ben.get(`${NOTES}?sort=title`);
    expect(benList.body.total_count).toBe(2);
    expect(benList.body.data.map((n: { title: string }) => n.title)).toEqual(['annShared', 'benPrivate']);
    expect((await ben.get(`${NOTES}${ids.annPrivate}`)).status).toBe(404);
    expect((await eve.get(NOTES)).body.total_count).toBe(3);
    // Only editors filter on the comment: for anyone else it is a hidden field.
    expect((await ben.get(`${NOTES}?reviewer_comment=x`)).status).toBe(400);
    expect((await eve.get(`${NOTES}?reviewer_comment=x`)).body.total_count).toBe(0);
  });

  it('an editor alone writes reviewer_comment, shown to the owner and editors only', async () => {
    const refused = await send(ann, 'PATCH', `${NOTES}${ids.annShared}`, { reviewer_comment: 'mine' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'reviewer_comment']);
    const reviewed = await send(eve, 'PATCH', `${NOTES}${ids.annShared}`, { reviewer_comment: 'good' });
    expect(reviewed.status).toBe(200);
    expect((await ann.get(`${NOTES}${ids.annShared}`)).body.reviewer_comment).toBe('good');
    const annList = await ann.get(`${NOTES}?sort=title`);
    expect(annList.body.data.find((n: { id: number }) => n.id === ids.annShared).reviewer_comment).toBe('good');
    const seenByBen = await ben.get(`${NOTES}${ids.annShared}`);
    expect(seenByBen.status).toBe(200);
    expect(seenByBen.body).not.toHaveProperty('reviewer_comment');
    // Ben lists Ann's shared note without the comment, and cannot find or order by it.
    const benList = await ben.get(`${NOTES}?sort=title`);
    expect(benList.body.data.find((n: { id: number }) => n.id === ids.annShared)).not.toHaveProperty(
      'reviewer_comment',
    );
    expect((await ben.get(`${NOTES}?sort=reviewer_comment`)).status).toBe(400);
    expect((await ann.get(`${NOTES}?reviewer_comment=good`)).status).toBe(400);
    expect((await eve.get(`${NOTES}?reviewer_comment=good`)).body.total_count).toBe(1);
    // Ben reads Ann's shared note but changes and deletes only his own.
    expect((await send(ben, 'PATCH', `${NOTES}${ids.annShared}`, { title: 'x' })).status).toBe(403);
    expect((await send(ben, 'DELETE', `${NOTES}${ids.annShared}`, undefined)).status).toBe(403);
  });

  it('the owner soft-deletes and restores; only an admin deletes for good', async () => {
    const note = ids.benPrivate;
    expect((await send(ben, 'DELETE', `${NOTES}${note}`, undefined)).status).toBe(200);
    expect((await send(ben, 'POST', `${NOTES}${note}/restore`, undefined)).status).toBe(200);
    expect((await send(ben, 'DELETE', `${NOTES}db_delete/${note}`, undefined)).status).toBe(403);
    expect((await send(ex.admin, 'DELETE', `${NOTES}db_delete/${note}`, undefined)).status).toBe(200);
    expect(await ex.db.knex('notes').where({ id: note }).first()).toBeUndefined();
  });

  it('an API key with notes:read reads but does not write', async () => {
    const made = await send(ann, 'POST', '/auth/api-keys', { name: 'script', scopes: ['notes:read'] });
    expect(made.status).toBe(201);
    const key = { 'x-api-key': made.body.key };
    const listed = await ex.client().request('GET', NOTES, { headers: key });
    expect(listed.status).toBe(200);
    expect(listed.body.total_count).toBe(2);
    const write = await ex.client().request('POST', NOTES, { headers: key, json: { title: 't', body: 'b' } });
    expect(write.status).toBe(403);
  });

  it('posts: the author or an editor updates, the author or an admin deletes; 403 others, 401 anonymous', async () => {
    const post = async (title: string) => (await send(ann, 'POST', '/api/v1/posts/', { title, text: 'x' })).body.id;
    const [first, second] = [await post('one'), await post('two')];
    expect((await ex.client().request('PATCH', `/api/v1/posts/${first}`, { json: { title: 'a' } })).status).toBe(401);
    expect((await send(ben, 'PATCH', `/api/v1/posts/${first}`, { title: 'b' })).status).toBe(403);
    expect((await send(eve, 'PATCH', `/api/v1/posts/${first}`, { title: 'edited' })).status).toBe(200);
    expect((await send(eve, 'DELETE', `/api/v1/posts/${first}`, undefined)).status).toBe(403);
    expect((await send(ex.admin, 'DELETE', `/api/v1/posts/${first}`, undefined)).status).toBe(200);
    expect((await send(ann, 'DELETE', `/api/v1/posts/${second}`, undefined)).status).toBe(200);
    expect(Number((await ex.db.knex('posts').count({ n: '*' }).first())!.n)).toBe(0);
  });

  it('the admin: roles for admin users and users, a role-holding admin under the notes policy, API keys and their events', async () => {
    await ex.app.admin.createAdminUser('root', ADMIN_PASSWORD);
    const annAdmin = await ex.app.admin.createAdminUser('ann', ADMIN_PASSWORD);
    const root = new AdminClient(ex.base);
    expect((await root.login('root', ADMIN_PASSWORD)).status).toBe(303);
    const roles = await root.get('/admin/management/roles/');
    expect(roles.text).toContain('notes:read, notes:review, notes:write');
    expect((await root.postForm(`/admin/management/roles/admin-users/${annAdmin}`, { roles: 'viewer' })).status).toBe(
      303,
    );
    // A user's roles, set from the admin, are the API's.
    expect((await root.postForm(`/admin/management/roles/users/${ex.ids.ben}`, { roles: 'editor' })).status).toBe(303);
    expect((await ex.app.auth.roles.rolesOf(ex.ids.ben)).roles).toEqual(['editor']);
    await root.postForm(`/admin/management/roles/users/${ex.ids.ben}`, {});
    // The admin user ann acts as the user ann: her own notes and the shared ones, the
    // comment on her own only, never sorted, searched nor filtered on.
    const benShared = (await send(ben, 'POST', NOTES, { title: 'benShared', body: 'text', shared: true })).body.id;
    for (const [id, comment] of [
      [ids.annShared, 'ann-review'],
      [benShared, 'ben-review'],
    ] as const)
      expect((await send(eve, 'PATCH', `${NOTES}${id}`, { reviewer_comment: comment })).status).toBe(200);
    const panel = new AdminClient(ex.base);
    expect((await panel.login('ann', ADMIN_PASSWORD)).status).toBe(303);
    const list = await panel.get('/admin/notes/');
    expect(list.status).toBe(200);
    const visible = (await ann.get(NOTES)).body.total_count;
    expect(list.text).toContain(`${visible} rows`);
    expect(list.text).toContain('annPrivate');
    expect(list.text).toContain('benShared');
    expect(list.text).toMatch(/<th[^>]*>Reviewer comment<\/th>/);
    expect(list.text).toContain('ann-review');
    expect(list.text).not.toContain('ben-review');
    expect(list.text).not.toContain('sort=reviewer_comment');
    expect(list.text).not.toContain('name="f.reviewer_comment"');
    expect((await panel.get('/admin/notes/?sort=reviewer_comment')).status).toBe(400);
    const csv = await panel.get('/admin/notes/export');
    expect(csv.text).toContain('ann-review');
    expect(csv.text).not.toContain('ben-review');
    expect((await panel.get(`/admin/notes/update/${benShared}`)).text).not.toContain('ben-review');
    // On her own note she reads the comment but may not write it: text, no input; forced, it is not written.
    const own = await panel.get(`/admin/notes/update/${ids.annShared}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('name="title"');
    expect(own.text).toContain('<dd aria-labelledby="f-reviewer_comment">ann-review</dd>');
    expect(own.text).not.toContain('name="reviewer_comment"');
    const forced = await panel.postForm(`/admin/notes/form_update/${ids.annShared}`, { reviewer_comment: 'forged' });
    expect(forced.status).toBe(303);
    expect((await ex.db.knex('notes').where({ id: ids.annShared }).first('reviewer_comment')).reviewer_comment).toBe(
      'ann-review',
    );
    expect((await root.get(`/admin/notes/update/${ids.annShared}`)).text).toContain('name="reviewer_comment"');
    expect((await root.get('/admin/notes/')).text).toContain('ben-review');
    expect((await panel.get('/admin/management/api-keys/')).status).toBe(403);
    // A key made and used through the API is in the admin's log; the admin lists and revokes it.
    const made = await send(ann, 'POST', '/auth/api-keys', { name: 'to revoke', scopes: ['notes:read'] });
    const key = { 'x-api-key': made.body.key };
    expect((await ex.client().request('GET', NOTES, { headers: key })).status).toBe(200);
    const keys = await root.get(`/admin/management/api-keys/?user=${ex.ids.ann}`);
    expect(keys.text).toContain('to revoke');
    expect(keys.text).not.toContain(made.body.key);
    expect((await root.postForm(`/admin/management/api-keys/${ex.ids.ann}/${made.body.id}/revoke`, {})).status).toBe(
      303,
    );
    expect((await ex.client().request('GET', NOTES, { headers: key })).status).toBe(401);
    const events = await ex.db
      .knex('admin_events')
      .where({ model: 'api_keys', record_id: String(made.body.id) })
      .orderBy('id');
    expect(events.map((e) => [e.event_type, e.username])).toEqual([
      ['api_key_created', null],
      ['api_key_first_used', null],
      ['api_key_revoked', 'root'],
    ]);
    expect(JSON.stringify(events)).not.toContain(made.body.key);
  });
});
