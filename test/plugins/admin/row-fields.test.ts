// The admin under a policy's per-row fields: an admin user with roles sees such a field on
// the rows its rule shows it on (list, export, /crud, update page), and on no other row;
// it never searches, filters nor sorts on it; on a row that hides it, the update page
// neither shows nor writes it, its event does not log it, and a revert may not write it.
// Full access is unchanged. On every engine of the run, on Koa.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { Model } from 'objection';
import { Access, type MigrationSet, type Principal } from '@crudsmith/core';
import type { ModelView, RoleCatalogue } from '@crudsmith/admin';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { startAdminApp, type AdminEnv, type Client } from './fixture';

const isChief = (p: Principal) => p.roles?.includes('chief') ?? false;

/** A dossier: its note is the chief's on every dossier, a clerk's on open ones only; both may write it. */
@Access({
  list: { permissions: ['dossiers:read'], rowFields: { note: (p) => isChief(p) || ((row) => Boolean(row.open)) } },
  read: { permissions: ['dossiers:read'], rowFields: { note: (p) => isChief(p) || ((row) => Boolean(row.open)) } },
  update: { permissions: ['dossiers:write'] },
})
class Dossier extends Model {
  static override tableName = 'dossiers';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      title: { type: 'string', maxLength: 40 },
      open: { type: 'boolean' },
      note: { type: ['string', 'null'], maxLength: 40 },
    },
  };
}

const migrations: MigrationSet = {
  name: 'admin-row-fields-dossiers',
  migrations: {
    '0001_dossiers': {
      async up(knex) {
        await knex.schema.createTable('dossiers', (t) => {
          t.increments('id');
          t.string('title', 40).notNullable();
          t.boolean('open').notNullable().defaultTo(false);
          t.string('note', 40).nullable();
        });
      },
      async down(knex) {
        await knex.schema.dropTable('dossiers');
      },
    },
  },
};

const catalogue: RoleCatalogue = {
  list: async () => [
    { name: 'chief', permissions: ['dossiers:read', 'dossiers:write'] },
    { name: 'clerk', permissions: ['dossiers:read', 'dossiers:write'] },
  ],
};

const dossierView: ModelView = {
  model: Dossier,
  allowedActions: ['view', 'update'],
  createSchema: ['title', 'open', 'note'],
  updateSchema: ['title', 'open', 'note'],
  displayField: 'title',
  export: true,
};

const CLERK = { username: 'clara', password: 'a clerk password of some length' };

async function seedDossiers(knex: Knex): Promise<{ open: number; closed: number }> {
  await knex('dossiers').insert([
    { title: 'open dossier', open: true, note: 'open-note' },
    { title: 'closed dossier', open: false, note: 'closed-note' },
  ]);
  const rows = await knex('dossiers').orderBy('id').select('id');
  return { open: Number(rows[0].id), closed: Number(rows[1].id) };
}

for (const engine of ENGINES) {
  describe(`admin per-row fields for admin users with roles on koa / ${engine}`, () => {
    let env: AdminEnv;
    let root: Client;
    let clerk: Client;
    let ids: { open: number; closed: number };
    beforeAll(async () => {
      env = await startAdminApp(
        koaHarness,
        engine,
        { eventIntegration: true, access: { roles: catalogue }, models: { dossiers: dossierView } },
        { migrations: [migrations] },
      );
      ids = await seedDossiers(env.db.knex);
      await env.plugin.createAdminUser(CLERK.username, CLERK.password);
      root = await env.signedIn();
      const clara = await env.db.knex('admin_users').where({ username: CLERK.username }).first('id');
      expect((await root.postForm(`/admin/management/roles/admin-users/${clara.id}`, { roles: 'clerk' })).status).toBe(
        303,
      );
      clerk = env.client();
      expect((await clerk.login(CLERK.username, CLERK.password)).status).toBe(303);
    });
    afterAll(async () => env?.close());

    it('lists the field on the rows that show it, never searching, filtering nor sorting on it', async () => {
      const list = await clerk.get('/admin/dossiers/');
      expect(list.status).toBe(200);
      expect(list.text).toContain('closed dossier');
      expect(list.text).toContain('open-note');
      expect(list.text).not.toContain('closed-note');
      // The column is there, its head no sort link, no search choice and no filter.
      expect(list.text).toMatch(/<th[^>]*>Note<\/th>/);
      expect(list.text).not.toContain('sort=note');
      expect(list.text).not.toContain('<option value="note"');
      expect(list.text).not.toContain('name="f.note"');
      expect(list.text).toContain('sort=title');
      // Forced, each is refused as for a column the list does not have.
      expect((await clerk.get('/admin/dossiers/?sort=note')).status).toBe(400);
      expect((await clerk.get('/admin/dossiers/?column-to-search=note&search=closed')).status).toBe(422);
      expect((await clerk.get('/admin/dossiers/?f.note=closed')).status).toBe(422);
      expect((await clerk.get('/admin/dossiers/export?sort=note')).status).toBe(400);
      // Full access: every value, sorted and searched on.
      const all = await root.get('/admin/dossiers/?sort=note');
      expect(all.status).toBe(200);
      expect(all.text).toContain('closed-note');
      expect(all.text).toContain('name="f.note"');
      expect((await root.get('/admin/dossiers/?column-to-search=note&search=closed')).text).toContain('closed dossier');
    });

    it('exports and answers /crud with the field on the rows that show it only', async () => {
      const csv = await clerk.get('/admin/dossiers/export');
      expect(csv.status).toBe(200);
      const [head, ...lines] = csv.text.trim().split(/\r?\n/);
      expect(head.split(',')).toContain('note');
      expect(lines.find((line) => line.includes('open dossier'))).toContain('open-note');
      expect(lines.find((line) => line.includes('closed dossier'))).toBeDefined();
      expect(csv.text).not.toContain('closed-note');
      expect((await root.get('/admin/dossiers/export')).text).toContain('closed-note');
      const listed = await clerk.get('/admin/crud/dossiers');
      expect(listed.json.total_count).toBe(2);
      expect(listed.text).toContain('open-note');
      expect(listed.text).not.toContain('closed-note');
      expect((await clerk.get(`/admin/crud/dossiers/${ids.closed}`)).json).not.toHaveProperty('note');
    });

    it('shows and writes the field on the update page of a row that shows it only', async () => {
      const open = await clerk.get(`/admin/dossiers/update/${ids.open}`);
      expect(open.status).toBe(200);
      expect(open.text).toContain('name="note"');
      expect(open.text).toContain('open-note');
      const closed = await clerk.get(`/admin/dossiers/update/${ids.closed}`);
      expect(closed.status).toBe(200);
      expect(closed.text).toContain('name="title"');
      expect(closed.text).not.toContain('name="note"');
      expect(closed.text).not.toContain('closed-note');
      // A value of it forced on that row is not written; the rest is, and its event logs no change of it.
      const forced = await clerk.postForm(`/admin/dossiers/form_update/${ids.closed}`, {
        title: 'closed, renamed',
        note: 'forged',
      });
      expect(forced.status).toBe(303);
      expect(await env.db.knex('dossiers').where({ id: ids.closed }).first('title', 'note')).toEqual({
        title: 'closed, renamed',
        note: 'closed-note',
      });
      const logged = await env.db.knex('admin_events').where({ model: 'dossiers', event_type: 'update' }).orderBy('id');
      expect(Object.keys(JSON.parse(logged.at(-1).details).changes)).toEqual(['title']);
      // On a row that shows it, the clerk writes it.
      const edited = await clerk.postForm(`/admin/dossiers/form_update/${ids.open}`, {
        title: 'open dossier',
        note: 'new',
      });
      expect(edited.status).toBe(303);
      expect((await env.db.knex('dossiers').where({ id: ids.open }).first('note')).note).toBe('new');
      await env.db.knex('dossiers').where({ id: ids.open }).update({ note: 'open-note' });
      await env.db.knex('dossiers').where({ id: ids.closed }).update({ title: 'closed dossier' });
    });

    it('keeps the field out of the event log it reads, and refuses a revert writing it on a row that hides it', async () => {
      const patch = (id: number, body: Record<string, unknown>) =>
        root.request('PATCH', `/admin/crud/dossiers/${id}`, { json: body, headers: { 'x-csrf-token': root.csrf } });
      expect((await patch(ids.closed, { note: 'closed-note-2' })).status).toBe(200);
      const event = (await env.db.knex('admin_events').where({ model: 'dossiers' }).orderBy('id', 'desc').first('id'))
        .id;
      expect((await root.get('/admin/management/events')).text).toContain('closed-note-2');
      const events = await clerk.get('/admin/management/events');
      expect(events.status).toBe(200);
      expect(events.text).not.toContain('closed-note');
      const revert = await clerk.postForm(`/admin/management/events/${event}/revert`, {});
      expect(revert.status).toBe(403);
      expect((await env.db.knex('dossiers').where({ id: ids.closed }).first('note')).note).toBe('closed-note-2');
      await env.db.knex('dossiers').where({ id: ids.closed }).update({ note: 'closed-note' });
    });
  });
}
