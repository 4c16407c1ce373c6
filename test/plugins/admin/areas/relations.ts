import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine, TestDatabase } from '../../../fixtures/db';
import { adminOptions, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** A row's edit page lists the rows of other views that refer to it, bounded, with links. */
export function relationsArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin relations on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let tier: number;
    beforeAll(async () => {
      // The models only: the options' knex is the app's own.
      const base = adminOptions({} as TestDatabase).models;
      env = await startAdminApp(harness, engine, {
        models: {
          ...base,
          users: { ...base.users, displayField: 'username' },
          tiers: { ...base.tiers, allowedActions: ['view', 'create', 'update'] },
        },
      });
      await env.db.knex('tiers').insert([{ name: 'gold' }, { name: 'empty' }]);
      tier = (await env.db.knex('tiers').where({ name: 'gold' }).first()).id;
      await env.db.knex('app_users').insert(
        Array.from({ length: 22 }, (_, i) => ({
          username: `u-${String(i).padStart(2, '0')}`,
          hashed_password: 'x',
          tier_id: tier,
        })),
      );
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it("lists a row's one-to-many children on its edit page: at most 20 by label, linked, in one query", async () => {
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      const page = await client.get(`/admin/tiers/update/${tier}`);
      env.db.knex.off('query', listen);
      expect(page.status).toBe(200);
      const [first] = await env.db.knex('app_users').where({ username: 'u-00' }).select('id');
      expect(page.text).toContain(
        `<section class="children"><h2>Users</h2><ul><li><a href="/admin/users/update/${first.id}">`,
      );
      expect(page.text.match(/<li><a href="\/admin\/users\/update\/\d+">/g)).toHaveLength(20);
      expect(page.text).toContain('u-19');
      expect(page.text).not.toContain('u-20');
      expect(page.text).toContain('<p class="more">Only the first 20 are listed.</p>');
      expect(queries.filter((sql) => /\bapp_users\b/.test(sql))).toHaveLength(1);
      const [empty] = await env.db.knex('tiers').where({ name: 'empty' }).select('id');
      expect((await client.get(`/admin/tiers/update/${empty.id}`)).text).toContain(
        '<h2>Users</h2><p class="empty">None</p>',
      );
    });
  });
}
