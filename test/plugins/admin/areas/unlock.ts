import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lockout, loginFailureMigration, loginLockoutsMigration } from '@crudsmith/core/auth';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine, TestDatabase } from '../../../fixtures/db';
import { ADMIN, adminOptions, seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

const TABLE = 'api_login_failures';

/**
 * Unlock of an API user from the admin: the app passes the view an `unlock` (here a core
 * Lockout's, as the account plugin's `unlock` does), the update page has its button, and
 * each unlock is logged.
 */
export function unlockArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin unlock of an API user on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let lockout: Lockout;
    let userId: number;
    const locked = async () => !(await lockout.attempt(`user:${userId}`, Date.now())).allowed;

    beforeAll(async () => {
      // The fixture's views (they need no database to be declared), the users view with unlock.
      const { models } = adminOptions({} as TestDatabase);
      env = await startAdminApp(harness, engine, {
        eventIntegration: true,
        models: {
          ...models,
          users: {
            ...models.users,
            unlock: (id) => lockout.succeed(`user:${id}`),
            isLocked: async (id) => (await lockout.lockedKeys([`user:${id}`], Date.now())).size > 0,
          },
        },
      });
      await loginFailureMigration(TABLE).up(env.db.knex);
      await loginLockoutsMigration(TABLE).up(env.db.knex);
      lockout = new Lockout(env.db.knex, TABLE, { threshold: 2, baseSeconds: 600 });
      await seed(env.db, 1);
      client = await env.signedIn();
      expect(
        (await client.postForm('/admin/users/form_create', { username: 'locked', password: 'a long enough secret' }))
          .status,
      ).toBe(303);
      userId = (await env.db.knex('app_users').where({ username: 'locked' }).first()).id;
      // Not locked yet: the view's isLocked says so, and the page has no button.
      expect((await client.get(`/admin/users/update/${userId}`)).text).not.toContain('/unlock/');
      for (let i = 0; i < 2; i++) {
        await lockout.attempt(`user:${userId}`, Date.now());
        await lockout.fail(`user:${userId}`, Date.now());
      }
    });
    afterAll(async () => {
      await env?.db.knex.schema.dropTableIfExists(TABLE);
      await env?.close();
    });

    it('shows an Unlock button on the update page of a locked account, and none on other views', async () => {
      expect((await client.get(`/admin/users/update/${userId}`)).text).toContain(
        `action="/admin/users/unlock/${userId}"`,
      );
      expect((await client.get('/admin/items/update/1')).text).not.toContain('/unlock/');
      expect((await client.postForm('/admin/items/unlock/1', {})).status).toBe(404);
    });

    it('refuses without the CSRF token (403) and for a missing row (404), lifting nothing', async () => {
      expect((await client.request('POST', `/admin/users/unlock/${userId}`, { form: {} })).status).toBe(403);
      expect((await client.postForm('/admin/users/unlock/424242', {})).status).toBe(404);
      expect((await client.postForm('/admin/users/unlock/abc', {})).status).toBe(404);
      expect(await locked()).toBe(true);
    });

    it('lifts the lockout, goes back to the row, and logs the unlock', async () => {
      const answer = await client.postForm(`/admin/users/unlock/${userId}`, {});
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe(`/admin/users/update/${userId}`);
      expect(await locked()).toBe(false);
      expect((await client.get(`/admin/users/update/${userId}`)).text).not.toContain('/unlock/');
      const events = await env.db
        .knex('admin_events')
        .where({ event_type: 'unlock', model: 'users' })
        .select('record_id', 'username');
      expect(events).toEqual([{ record_id: String(userId), username: ADMIN.username }]);
    });
  });
}
