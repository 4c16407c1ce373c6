import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine, TestDatabase } from '../../../fixtures/db';
import { BadgedTier, BadgedUser, badgeMigrations, badgesView } from '../badges';
import { adminOptions, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** A row's edit page lists the rows of other views that refer to it, bounded, with links. */
export function relationsArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin relations on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let tier: number;
    let badges: Record<string, number>;
    /** The stored password hash each sign-out everywhere read, through the app's own pool. */
    const signOuts: string[] = [];
    beforeAll(async () => {
      // The models only: the options' knex is the app's own.
      const base = adminOptions({} as TestDatabase).models;
      env = await startAdminApp(
        harness,
        engine,
        {
          models: {
            ...base,
            users: {
              ...base.users,
              model: BadgedUser,
              displayField: 'username',
              signOutEverywhere: async (id) =>
                void signOuts.push((await env.db.knex('app_users').where({ id }).first()).hashed_password),
            },
            // Without the fixture's name rewrite, so a form of links alone writes no column.
            tiers: {
              ...base.tiers,
              model: BadgedTier,
              allowedActions: ['view', 'create', 'update'],
              beforeWrite: undefined,
            },
            badges: badgesView,
          },
          eventIntegration: true,
        },
        { migrations: [badgeMigrations] },
      );
      await env.db.knex('badges').insert(['alpha', 'beta', 'gamma'].map((title) => ({ title })));
      badges = Object.fromEntries(
        (await env.db.knex('badges').select('id', 'title')).map((b) => [b.title, Number(b.id)]),
      );
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

    const linked = async () =>
      (await env.db.knex('tier_badges').where({ tier_id: tier }).orderBy('badge_id').select('badge_id')).map((r) =>
        Number(r.badge_id),
      );

    it('edits a many-to-many set with a searchable multi-select, in the transaction of the row', async () => {
      await env.db.knex('tier_badges').insert({ tier_id: tier, badge_id: badges.alpha });
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      env.db.knex.on('query', listen);
      const page = await client.get(`/admin/tiers/update/${tier}`);
      env.db.knex.off('query', listen);
      // The linked rows and the first others: two queries, each bounded.
      const onBadges = queries.filter((sql) => /\bbadges\b/.test(sql));
      expect(onBadges).toHaveLength(2);
      for (const sql of onBadges) expect(sql).toMatch(/\blimit\b/i);
      expect(page.text).toContain(
        `<input class="lookup" type="search" data-lookup="/admin/tiers/lookup/badges" aria-label="Search Badges" aria-controls="f-badges"`,
      );
      expect(page.text).toContain(
        `<select id="f-badges" name="badges" multiple size="3"><option value="${badges.alpha}" selected>alpha</option><option value="${badges.beta}">beta</option>`,
      );
      const found = await client.get('/admin/tiers/lookup/badges?q=gam');
      expect(found.json).toEqual({ options: [{ value: String(badges.gamma), label: 'gamma' }] });
      // alpha removed, beta and gamma added, the name changed with them.
      const answer = await client.postForm(`/admin/tiers/form_update/${tier}`, {
        name: 'platinum',
        badges: ['', String(badges.beta), String(badges.gamma)],
      });
      expect(answer.status).toBe(303);
      expect(await linked()).toEqual([badges.beta, badges.gamma]);
      expect((await env.db.knex('tiers').where({ id: tier }).first()).name).toBe('platinum');
      // One update event holds the row's change and the links' keys before and after, sorted.
      const sorted = (...keys: number[]) =>
        keys.map(String).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      const logged = async () =>
        (await env.db.knex('admin_events').where({ event_type: 'update', model: 'tiers' }).orderBy('id'))
          .filter((e) => e.record_id === String(tier))
          .map((e) => JSON.parse(e.details).changes);
      expect(await logged()).toEqual([
        {
          name: { before: 'gold', after: 'platinum' },
          badges: { before: sorted(badges.alpha), after: sorted(badges.beta, badges.gamma) },
        },
      ]);
      // Links alone still log an update, which the event view offers no revert for.
      const links = await client.postForm(`/admin/tiers/form_update/${tier}`, { badges: String(badges.beta) });
      expect(links.status).toBe(303);
      expect((await logged())[1]).toEqual({
        badges: { before: sorted(badges.beta, badges.gamma), after: sorted(badges.beta) },
      });
      const [linksOnly] = await env.db.knex('admin_events').orderBy('id', 'desc').limit(1).pluck('id');
      const view = await client.get('/admin/management/events');
      expect(view.text).not.toContain(`/admin/management/events/${linksOnly}/revert`);
      expect(view.text).toContain('/revert');
      // A link change's field reads as the form's label, in the page's language, not the relation's name.
      expect(view.text).toContain('<th scope="row">Badges (links)</th>');
      expect(view.text).not.toContain('<th scope="row">badges</th>');
      const german = await client.get('/admin/management/events', { 'accept-language': 'de' });
      expect(german.text).toContain('<th scope="row">Badges (Verknüpfungen)</th>');
      expect((await client.postForm(`/admin/management/events/${linksOnly}/revert`, {})).status).toBe(400);
      // Restore the set the later cases start from.
      await client.postForm(`/admin/tiers/form_update/${tier}`, {
        badges: [String(badges.beta), String(badges.gamma)],
      });
    });

    it('refuses a forged choice with 422, writing neither the row nor the links', async () => {
      const before = await linked();
      for (const forged of ['424242', 'not-a-key']) {
        const answer = await client.postForm(`/admin/tiers/form_update/${tier}`, {
          name: 'forged',
          badges: [String(badges.alpha), forged],
        });
        expect(answer.status).toBe(422);
        expect(answer.text).toContain('Choose from the list');
      }
      expect(await linked()).toEqual(before);
      expect((await env.db.knex('tiers').where({ id: tier }).first()).name).toBe('platinum');
      // The empty choice alone clears the set.
      expect((await client.postForm(`/admin/tiers/form_update/${tier}`, { badges: '' })).status).toBe(303);
      expect(await linked()).toEqual([]);
      // A new row gets its links with it.
      expect(
        (await client.postForm('/admin/tiers/form_create', { name: 'silver', badges: String(badges.beta) })).status,
      ).toBe(303);
      const silver = await env.db.knex('tiers').where({ name: 'silver' }).first();
      expect(
        (await env.db.knex('tier_badges').where({ tier_id: silver.id }).select('badge_id')).map((r) =>
          Number(r.badge_id),
        ),
      ).toEqual([badges.beta]);
    });

    it('signs the account out after the transaction of a password and links commits, on the pool of one connection too', async () => {
      const [user] = await env.db.knex('app_users').where({ username: 'u-00' }).select('id', 'hashed_password');
      const answer = await client.postForm(`/admin/users/form_update/${user.id}`, {
        password: 'a new long password',
        badges: [String(badges.alpha), String(badges.gamma)],
      });
      expect(answer.status).toBe(303);
      const after = await env.db.knex('app_users').where({ id: user.id }).first();
      expect(after.hashed_password).not.toBe(user.hashed_password);
      // The sign-out ran once, outside the transaction, and saw the committed hash.
      expect(signOuts).toEqual([after.hashed_password]);
      const links = await env.db.knex('user_badges').where({ user_id: user.id }).orderBy('badge_id').select('badge_id');
      expect(links.map((r) => Number(r.badge_id))).toEqual([badges.alpha, badges.gamma]);
    });
  });
}
