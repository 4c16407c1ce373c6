import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFirstAdmin } from '../../examples/app/src/admin';
import { ENGINES } from '../fixtures/db';
import { Client as AdminClient } from '../plugins/admin/fixture';
import { ADMIN_PASSWORD, PASSWORD, send, startExample, type ExampleServer } from './example-server';

// The admin's actions on accounts, roles and API keys write their event in the action's
// transaction, as its form writes do (test/plugins/admin/areas/events.ts): with the event's
// insert failing, the action answers 500 and changes nothing; otherwise both are there. Run
// on the example, whose account plugin does the unlocks, sign-outs, role sets and revokes.
describe.each(ENGINES)('example app /admin events in the write transaction with %s', (engine) => {
  let ex: ExampleServer;
  let panel: AdminClient;
  const VERA = { username: 'vera', password: 'vera has a long password' };

  beforeAll(async () => {
    ex = await startExample(engine, { users: ['kay', 'lou', 'max', 'ned'] });
    await ensureFirstAdmin(ex.app.admin, { username: 'admin', password: ADMIN_PASSWORD }, () => {});
    await ex.app.admin.createAdminUser(VERA.username, VERA.password);
    panel = new AdminClient(ex.base);
    expect((await panel.login('admin', ADMIN_PASSWORD)).status).toBe(303);
  });
  afterAll(async () => ex?.close());

  // The log still reads, but its insert fails, inside the action's transaction.
  const column = (from: string, to: string) =>
    ex.db.knex.schema.alterTable('admin_events', (t) => t.renameColumn(from, to));
  const withBrokenLog = async (action: () => Promise<void>) => {
    await column('user_agent', 'user_agent_away');
    try {
      await action();
    } finally {
      await column('user_agent_away', 'user_agent');
    }
  };
  const events = async (type: string, model: string) =>
    (await ex.db.knex('admin_events').where({ event_type: type, model }).orderBy('id')).map((e) => ({
      record: String(e.record_id),
      username: e.username,
      details: e.details ? JSON.parse(e.details) : null,
    }));

  it('unlocks an admin user and logs it together, or neither', async () => {
    const vera = await ex.db.knex('admin_users').where({ username: VERA.username }).first('id');
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++)
      status = (await new AdminClient(ex.base).login(VERA.username, 'a wrong password here')).status;
    expect(status).toBe(429);
    const unlock = () => panel.postForm(`/admin/management/admin-users/${vera.id}/unlock`, {});
    await withBrokenLog(async () => expect((await unlock()).status).toBe(500));
    expect((await new AdminClient(ex.base).login(VERA.username, VERA.password)).status).toBe(429);
    expect(await events('unlock', 'admin_users')).toEqual([]);
    expect((await unlock()).status).toBe(303);
    expect((await new AdminClient(ex.base).login(VERA.username, VERA.password)).status).toBe(303);
    expect(await events('unlock', 'admin_users')).toMatchObject([{ record: String(vera.id), username: 'admin' }]);
  });

  it("unlocks an API user (the account plugin's unlock) and logs it together, or neither", async () => {
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++) status = (await ex.client().login('kay', 'a wrong password')).status;
    expect(status).toBe(429);
    const unlock = () => panel.postForm(`/admin/users/unlock/${ex.ids.kay}`, {});
    await withBrokenLog(async () => expect((await unlock()).status).toBe(500));
    expect((await ex.client().login('kay', PASSWORD)).status).toBe(429);
    expect(await ex.app.auth.isLocked(ex.ids.kay)).toBe(true);
    expect(await events('unlock', 'users')).toEqual([]);
    expect((await unlock()).status).toBe(303);
    expect((await ex.client().login('kay', PASSWORD)).status).toBe(200);
    expect(await events('unlock', 'users')).toMatchObject([{ record: String(ex.ids.kay), username: 'admin' }]);
  });

  it('signs an API user out everywhere and logs it together, or neither', async () => {
    const session = await ex.signedIn('lou');
    const token = await ex.client().request('POST', '/auth/token', { form: { username: 'lou', password: PASSWORD } });
    expect(token.status).toBe(200);
    let refresh = token.body.refresh_token as string;
    // Each check of the refresh token rotates it: the next check uses the new one.
    const signedIn = async () => {
      const refreshed = await ex.client().request('POST', '/auth/refresh', { json: { refresh_token: refresh } });
      if (refreshed.status === 200) refresh = refreshed.body.refresh_token;
      return {
        session: (await session.get('/auth/me')).status,
        access: (await ex.client().get('/auth/me', { authorization: `Bearer ${token.body.access_token}` })).status,
        refresh: refreshed.status,
      };
    };
    const signOut = () => panel.postForm(`/admin/users/sign-out/${ex.ids.lou}`, {});
    await withBrokenLog(async () => expect((await signOut()).status).toBe(500));
    expect(await signedIn()).toEqual({ session: 200, access: 200, refresh: 200 });
    expect(await events('sign_out_everywhere', 'users')).toEqual([]);
    expect((await signOut()).status).toBe(303);
    expect(await signedIn()).toEqual({ session: 401, access: 401, refresh: 401 });
    expect(await events('sign_out_everywhere', 'users')).toMatchObject([
      { record: String(ex.ids.lou), username: 'admin' },
    ]);
  });

  it("changes an admin user's roles and logs it together, or neither", async () => {
    const vera = await ex.db.knex('admin_users').where({ username: VERA.username }).first('id');
    const held = async () => ex.db.knex('admin_user_roles').where({ admin_user_id: vera.id }).pluck('role');
    const change = () => panel.postForm(`/admin/management/roles/admin-users/${vera.id}`, { roles: 'viewer' });
    await withBrokenLog(async () => expect((await change()).status).toBe(500));
    expect(await held()).toEqual([]);
    expect(await events('role_change', 'admin_users')).toEqual([]);
    expect((await change()).status).toBe(303);
    expect(await held()).toEqual(['viewer']);
    expect(await events('role_change', 'admin_users')).toEqual([
      { record: String(vera.id), username: 'admin', details: { roles: { before: [], after: ['viewer'] } } },
    ]);
  });

  it("changes an API user's roles (the account plugin's setRoles) and logs it together, or neither", async () => {
    const held = async () => (await ex.app.auth.roles.rolesOf(ex.ids.max)).roles;
    expect(await held()).toEqual([]);
    const change = () => panel.postForm(`/admin/management/roles/users/${ex.ids.max}`, { roles: 'editor' });
    await withBrokenLog(async () => expect((await change()).status).toBe(500));
    expect(await held()).toEqual([]);
    expect((await ex.signedIn('max').then((c) => c.get('/api/v1/users/me'))).body.roles).toEqual([]);
    expect(await events('role_change', 'users')).toEqual([]);
    expect((await change()).status).toBe(303);
    expect(await held()).toEqual(['editor']);
    expect(await events('role_change', 'users')).toEqual([
      { record: String(ex.ids.max), username: 'admin', details: { roles: { before: [], after: ['editor'] } } },
    ]);
  });

  it("revokes an API user's key and logs it together, or neither", async () => {
    expect((await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ned}/roles`, { roles: ['viewer'] })).status).toBe(200);
    const ned = await ex.signedIn('ned');
    const made = await send(ned, 'POST', '/auth/api-keys', { name: 'script', scopes: ['notes:read'] });
    expect(made.status).toBe(201);
    // Its first use is an event too: out of the way before the log breaks.
    const works = async () =>
      (await ex.client().request('GET', '/api/v1/notes/', { headers: { 'x-api-key': made.body.key } })).status;
    expect(await works()).toBe(200);
    const revoke = () => panel.postForm(`/admin/management/api-keys/${ex.ids.ned}/${made.body.id}/revoke`, {});
    await withBrokenLog(async () => expect((await revoke()).status).toBe(500));
    expect(await works()).toBe(200);
    expect(await events('api_key_revoked', 'api_keys')).toEqual([]);
    expect((await revoke()).status).toBe(303);
    expect(await works()).toBe(401);
    expect(await events('api_key_revoked', 'api_keys')).toMatchObject([
      { record: String(made.body.id), username: 'admin', details: { user_id: String(ex.ids.ned), name: 'script' } },
    ]);
  });
});
