import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { ADMIN, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** The admin's own users and sessions, as pages of the admin. */
export function managementArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin users and sessions pages on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    const base = '/admin/management/admin-users';

    it('lists the admin users with their live sessions', async () => {
      const page = await client.get(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.text).toMatch(
        new RegExp(`<td>${ADMIN.username}</td><td>[^<]+</td><td><a href="${base}/\\d+/sessions">1</a>`),
      );
      expect(page.text).not.toMatch(/\$2[aby]\$/);
    });

    it('adds an admin user who can sign in; a short password is 422, a taken name 409', async () => {
      expect((await client.postForm(`${base}/`, { username: 'second', password: 'short' })).status).toBe(422);
      expect(
        (await client.postForm(`${base}/`, { username: 'second', password: 'a second long password' })).status,
      ).toBe(303);
      expect(
        (await client.postForm(`${base}/`, { username: 'SECOND', password: 'a second long password' })).status,
      ).toBe(409);
      expect((await env.client().login('second', 'a second long password')).status).toBe(303);
    });

    it('ends another session by its handle; that cookie stops working, this one goes on', async () => {
      const other = await env.signedIn();
      const [user] = await env.db.knex('admin_users').where({ username: ADMIN.username }).select('id');
      const page = await client.get(`${base}/${user.id}/sessions`);
      const handles = [...page.text.matchAll(/<tr data-handle="([^"]+)"/g)].map((m) => m[1]);
      expect(handles.length).toBeGreaterThanOrEqual(2);
      expect(page.text).toContain('End (this session)');
      const ours = /<tr data-handle="([^"]+)">(?:(?!<\/tr>).)*End \(this session\)/.exec(page.text)![1];
      for (const handle of handles.filter((h) => h !== ours)) {
        expect((await client.postForm(`${base}/${user.id}/sessions/${handle}/revoke`, {})).status).toBe(303);
      }
      expect((await other.get('/admin/')).status).toBe(303);
      expect((await client.get('/admin/')).status).toBe(200);
    });

    it('lifts a sign-in lockout of an admin user', async () => {
      await env.plugin.createAdminUser('forgetful', 'forgetful long password');
      for (let i = 0; i < 3; i++) expect((await env.client().login('forgetful', 'a wrong password')).status).toBe(401);
      expect((await env.client().login('forgetful', 'forgetful long password')).status).toBe(429);
      const [user] = await env.db.knex('admin_users').where({ username: 'forgetful' }).select('id');
      // Only the locked user has an Unlock button.
      const listed = (await client.get(`${base}/`)).text;
      expect(listed).toContain(`action="${base}/${user.id}/unlock"`);
      expect(listed.match(/\/unlock"/g)).toHaveLength(1);
      expect((await client.request('POST', `${base}/${user.id}/unlock`, { form: {} })).status).toBe(403);
      expect((await env.client().login('forgetful', 'forgetful long password')).status).toBe(429);
      expect((await client.postForm(`${base}/${user.id}/unlock`, {})).status).toBe(303);
      expect((await env.client().login('forgetful', 'forgetful long password')).status).toBe(303);
      expect((await client.get(`${base}/`)).text).not.toContain('/unlock"');
    });

    it('answers 404 for an unknown user or session handle, and 403 without the CSRF token', async () => {
      expect((await client.get(`${base}/999999/sessions`)).status).toBe(404);
      const [user] = await env.db.knex('admin_users').where({ username: ADMIN.username }).select('id');
      expect((await client.postForm(`${base}/${user.id}/sessions/nohandle/revoke`, {})).status).toBe(404);
      expect(
        (await client.request('POST', `${base}/`, { form: { username: 'third', password: 'a third long password' } }))
          .status,
      ).toBe(403);
    });
  });
}
