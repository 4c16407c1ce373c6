import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFirstAdmin } from '../../examples/app/src/admin';
import { ENGINES } from '../fixtures/db';
import { Client as AdminClient } from '../plugins/admin/fixture';
import { ADMIN_PASSWORD, startExample, type ExampleServer } from './example-server';

// The example's /admin: the first admin user from ADMIN_USERNAME / ADMIN_PASSWORD, its
// models, and writes that keep the API's rules (hashed passwords the account plugin
// accepts, sanitized rate-limit paths).
describe.each(ENGINES)('example app /admin with %s', (engine) => {
  let ex: ExampleServer;
  let panel: AdminClient;

  beforeAll(async () => {
    ex = await startExample(engine);
    const lines: string[] = [];
    await ensureFirstAdmin(
      ex.app.admin,
      { username: 'admin', password: ADMIN_PASSWORD },
      (line) => void lines.push(line),
    );
    expect(lines).toEqual(['Created the admin user admin for /admin (password from ADMIN_PASSWORD).']);
    await ensureFirstAdmin(
      ex.app.admin,
      { username: 'admin', password: ADMIN_PASSWORD },
      (line) => void lines.push(line),
    );
    expect(lines).toHaveLength(1);
    panel = new AdminClient(ex.base);
    expect((await panel.login('admin', ADMIN_PASSWORD)).status).toBe(303);
  });
  afterAll(async () => ex?.close());

  it('shows items, users, posts, tiers and rate limits on the dashboard', async () => {
    const page = await panel.get('/admin/');
    expect(page.status).toBe(200);
    for (const model of ['items', 'users', 'posts', 'tiers', 'rate_limits'])
      expect(page.text).toContain(`href="/admin/${model}/"`);
  });

  it('creates a user with a hashed password and a tier from a select; the user signs in through /auth', async () => {
    await ex.db.knex('tiers').insert({ name: 'pro', created_at: new Date() });
    const tier = await ex.db.knex('tiers').where({ name: 'pro' }).first();
    const form = await panel.get('/admin/users/create_page');
    expect(form.text).toMatch(new RegExp(`<option value="${tier.id}">pro</option>`));
    expect(form.text).not.toContain('hashed_password');
    const created = await panel.postForm('/admin/users/form_create', {
      name: 'Zed',
      username: 'zed',
      email: 'zed@example.com',
      password: 'zed has a long password',
      tier_id: String(tier.id),
      is_superuser: 'false',
    });
    expect(created.status).toBe(303);
    const row = await ex.db.knex('users').where({ username: 'zed' }).first();
    expect(row.tier_id).toBe(tier.id);
    expect(row.hashed_password).toMatch(/^\$2[aby]\$/);
    expect((await ex.client().login('zed', 'zed has a long password')).status).toBe(200);
  });

  it('soft-deletes a user through bulk delete, which signs that user out everywhere', async () => {
    const zed = await ex.db.knex('users').where({ username: 'zed' }).first();
    const session = ex.client();
    expect((await session.login('zed', 'zed has a long password')).status).toBe(200);
    expect((await session.get('/auth/me')).status).toBe(200);
    const removed = await panel.request('DELETE', '/admin/users/bulk-delete', {
      json: { ids: [zed.id] },
      headers: { 'x-csrf-token': panel.csrf },
    });
    expect(removed.status).toBe(200);
    expect(Boolean((await ex.db.knex('users').where({ id: zed.id }).first()).is_deleted)).toBe(true);
    expect((await session.get('/auth/me')).status).toBe(401);
    expect((await ex.client().login('zed', 'zed has a long password')).status).toBe(401);
  });

  it("lifts an API user's sign-in lockout from the users view (the account plugin's unlock), and logs it", async () => {
    const created = await panel.postForm('/admin/users/form_create', {
      name: 'Lok',
      username: 'lok',
      email: 'lok@example.com',
      password: 'lok has a long password',
      is_superuser: 'false',
    });
    expect(created.status).toBe(303);
    const lok = await ex.db.knex('users').where({ username: 'lok' }).first();
    // Not locked yet: no Unlock button (the account plugin's isLocked says so).
    expect((await panel.get(`/admin/users/update/${lok.id}`)).text).not.toContain('/unlock/');
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++)
      status = (await ex.client().login('lok', 'a wrong password here')).status;
    expect(status).toBe(429);
    expect((await ex.client().login('lok', 'lok has a long password')).status).toBe(429);
    const page = await panel.get(`/admin/users/update/${lok.id}`);
    expect(page.text).toContain(`action="/admin/users/unlock/${lok.id}"`);
    expect((await panel.request('POST', `/admin/users/unlock/${lok.id}`, { form: {} })).status).toBe(403);
    expect((await ex.client().login('lok', 'lok has a long password')).status).toBe(429);
    expect((await panel.postForm('/admin/users/unlock/424242', {})).status).toBe(404);
    const unlocked = await panel.postForm(`/admin/users/unlock/${lok.id}`, {});
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get('location')).toBe(`/admin/users/update/${lok.id}`);
    expect((await ex.client().login('lok', 'lok has a long password')).status).toBe(200);
    expect((await panel.get(`/admin/users/update/${lok.id}`)).text).not.toContain('/unlock/');
    const events = await ex.db.knex('admin_events').where({ event_type: 'unlock', model: 'users' }).select('record_id');
    expect(events.map((e) => String(e.record_id))).toEqual([String(lok.id)]);
  });

  // Signs `username` in every way there is: a session, an access token and a refresh token.
  const signInEveryWay = async (username: string, password: string) => {
    const session = ex.client();
    expect((await session.login(username, password)).status).toBe(200);
    const token = await ex.client().request('POST', '/auth/token', { form: { username, password } });
    expect(token.status).toBe(200);
    return { session, access: token.body.access_token as string, refresh: token.body.refresh_token as string };
  };
  // Whether anything of `signInEveryWay` still works.
  const stillSignedIn = async (signed: {
    session: ReturnType<ExampleServer['client']>;
    access: string;
    refresh: string;
  }) => ({
    session: (await signed.session.get('/auth/me')).status,
    access: (await ex.client().get('/auth/me', { authorization: `Bearer ${signed.access}` })).status,
    refresh: (await ex.client().request('POST', '/auth/refresh', { json: { refresh_token: signed.refresh } })).status,
  });
  const SIGNED_OUT = { session: 401, access: 401, refresh: 401 };
  const createUser = async (username: string, password: string) => {
    const created = await panel.postForm('/admin/users/form_create', {
      name: username,
      username,
      email: `${username}@example.com`,
      password,
      is_superuser: 'false',
    });
    expect(created.status).toBe(303);
    return (await ex.db.knex('users').where({ username }).first()).id as number;
  };

  it('signs a user out everywhere when the admin sets their password: sessions, access and refresh tokens, and the old password', async () => {
    const id = await createUser('pam', 'pam has a long password');
    const signed = await signInEveryWay('pam', 'pam has a long password');
    const updated = await panel.postForm(`/admin/users/form_update/${id}`, {
      name: 'pam',
      username: 'pam',
      email: 'pam@example.com',
      password: 'the admin chose this one',
    });
    expect(updated.status).toBe(303);
    expect(await stillSignedIn(signed)).toEqual(SIGNED_OUT);
    expect((await ex.client().login('pam', 'pam has a long password')).status).toBe(401);
    expect((await ex.client().login('pam', 'the admin chose this one')).status).toBe(200);
  });

  it('keeps a user signed in when the admin saves their row without a new password', async () => {
    const id = await createUser('kim', 'kim has a long password');
    const signed = await signInEveryWay('kim', 'kim has a long password');
    expect(
      (
        await panel.postForm(`/admin/users/form_update/${id}`, {
          name: 'Kim K',
          username: 'kim',
          email: 'kim@example.com',
          password: '',
        })
      ).status,
    ).toBe(303);
    expect(await stillSignedIn(signed)).toEqual({ session: 200, access: 200, refresh: 200 });
  });

  it('revives no sign-in when a soft-deleted user is restored from the trash', async () => {
    const id = await createUser('rex', 'rex has a long password');
    const signed = await signInEveryWay('rex', 'rex has a long password');
    expect(
      (
        await panel.request('DELETE', '/admin/users/bulk-delete', {
          json: { ids: [id] },
          headers: { 'x-csrf-token': panel.csrf },
        })
      ).status,
    ).toBe(200);
    expect((await panel.postForm('/admin/users/trash/restore', { ids: String(id) })).status).toBe(303);
    expect(Boolean((await ex.db.knex('users').where({ id }).first()).is_deleted)).toBe(false);
    expect(await stillSignedIn(signed)).toEqual(SIGNED_OUT);
    expect((await ex.client().login('rex', 'rex has a long password')).status).toBe(200);
  });

  it("signs a user out everywhere when deleted through the admin's JSON API, and a restore revives nothing", async () => {
    const id = await createUser('ida', 'ida has a long password');
    const signed = await signInEveryWay('ida', 'ida has a long password');
    expect(
      (await panel.request('DELETE', `/admin/crud/users/${id}`, { headers: { 'x-csrf-token': panel.csrf } })).status,
    ).toBeLessThan(300);
    expect((await panel.postForm('/admin/users/trash/restore', { ids: String(id) })).status).toBe(303);
    expect(await stillSignedIn(signed)).toEqual(SIGNED_OUT);
  });

  it("signs a user out everywhere from the update page's button, CSRF-protected and logged", async () => {
    const id = await createUser('sol', 'sol has a long password');
    const signed = await signInEveryWay('sol', 'sol has a long password');
    const page = await panel.get(`/admin/users/update/${id}`);
    expect(page.text).toContain(`action="/admin/users/sign-out/${id}"`);
    expect((await panel.request('POST', `/admin/users/sign-out/${id}`, { form: {} })).status).toBe(403);
    expect(await stillSignedIn(signed)).toEqual({ session: 200, access: 200, refresh: 200 });
    expect((await panel.postForm('/admin/users/sign-out/424242', {})).status).toBe(404);
    const done = await panel.postForm(`/admin/users/sign-out/${id}`, {});
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/admin/users/update/${id}`);
    expect(await stillSignedIn(signed)).toEqual(SIGNED_OUT);
    // The password is unchanged: only what was signed in ends.
    expect((await ex.client().login('sol', 'sol has a long password')).status).toBe(200);
    const events = await ex.db
      .knex('admin_events')
      .where({ event_type: 'sign_out_everywhere', model: 'users' })
      .select('record_id', 'username');
    expect(events.map((e) => [String(e.record_id), e.username])).toEqual([[String(id), 'admin']]);
  });

  it("clears is_verified when the admin changes a user's e-mail address, and keeps it otherwise", async () => {
    const id = await createUser('eve', 'eve has a long password');
    await ex.db.knex('users').where({ id }).update({ is_verified: true });
    expect(
      (
        await panel.postForm(`/admin/users/form_update/${id}`, {
          name: 'Eve E',
          username: 'eve',
          email: 'eve@example.com',
          password: '',
        })
      ).status,
    ).toBe(303);
    expect(Boolean((await ex.db.knex('users').where({ id }).first()).is_verified)).toBe(true);
    expect(
      (
        await panel.postForm(`/admin/users/form_update/${id}`, {
          name: 'Eve E',
          username: 'eve',
          email: 'eve@elsewhere.example',
          password: '',
        })
      ).status,
    ).toBe(303);
    const row = await ex.db.knex('users').where({ id }).first();
    expect(row.email).toBe('eve@elsewhere.example');
    expect(Boolean(row.is_verified)).toBe(false);
  });

  it('stores a rate-limit path sanitized, as the API does', async () => {
    const tier = await ex.db.knex('tiers').where({ name: 'pro' }).first();
    const created = await panel.postForm('/admin/rate_limits/form_create', {
      tier_id: String(tier.id),
      name: 'items',
      path: '/api/v1/items/',
      limit: '5',
      period: '60',
    });
    expect(created.status).toBe(303);
    expect((await ex.db.knex('rate_limits').where({ name: 'items' }).first()).path).toBe('api_v1_items');
  });
});
