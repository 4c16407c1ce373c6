// The update page of an admin user with roles shows the fields it reads on the row but may
// not write as text (label and value as a list cell shows it), with no input and nothing
// posted for them; a forced value of one is still not written. A per-row field the read rule
// hides on a row is not on that row's page at all. Full access is unchanged. On every engine
// of the run, on Koa.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { startAdminApp, type AdminEnv, type Client } from './fixture';
import {
  PIN_HASH,
  SUPPORT,
  pinnedTicketView,
  seedTickets,
  ticketCatalogue,
  ticketMigrations,
  ticketView,
} from './tickets';

/** The read-only field's markup: its label a `dt` naming the `dd` with the value as a list cell shows it. */
const readOnly = (name: string, label: string, cell: string) =>
  `<dl class="field readonly"><dt id="f-${name}">${label}</dt><dd aria-labelledby="f-${name}">${cell}</dd></dl>`;

for (const engine of ENGINES) {
  describe(`admin read-only fields for admin users with roles on koa / ${engine}`, () => {
    let env: AdminEnv;
    let root: Client;
    let support: Client;
    let ids: { open: number; closed: number };
    beforeAll(async () => {
      env = await startAdminApp(
        koaHarness,
        engine,
        {
          eventIntegration: true,
          access: { roles: ticketCatalogue },
          models: { tickets: ticketView, pinned_tickets: pinnedTicketView },
        },
        { migrations: [ticketMigrations] },
      );
      ids = await seedTickets(env.db.knex);
      await env.plugin.createAdminUser(SUPPORT.username, SUPPORT.password);
      root = await env.signedIn();
      const sam = await env.db.knex('admin_users').where({ username: SUPPORT.username }).first('id');
      expect((await root.postForm(`/admin/management/roles/admin-users/${sam.id}`, { roles: 'support' })).status).toBe(
        303,
      );
      support = env.client();
      expect((await support.login(SUPPORT.username, SUPPORT.password)).status).toBe(303);
    });
    afterAll(async () => env?.close());

    it('shows what the role reads but may not write as text, with no input, and writes no forced value of it', async () => {
      const page = await support.get(`/admin/tickets/update/${ids.open}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('name="title"');
      expect(page.text).toContain(readOnly('status', 'Status', '<span class="badge">escalated</span>'));
      expect(page.text).toContain(readOnly('open', 'Open', '<span class="badge yes">Yes</span>'));
      expect(page.text).toContain(readOnly('comment', 'Comment', 'open-comment'));
      for (const name of ['status', 'open', 'comment']) {
        expect(page.text).not.toContain(`name="${name}"`);
        expect(page.text).not.toContain(`for="f-${name}"`);
      }
      // In the schema's order: the title's input, then the three read-only fields.
      expect(page.text.indexOf('name="title"')).toBeLessThan(page.text.indexOf('id="f-status"'));
      // Forced, their values are not written; the title is.
      const forced = await support.postForm(`/admin/tickets/form_update/${ids.open}`, {
        title: 'open, renamed',
        status: 'done',
        open: 'false',
        comment: 'forged',
      });
      expect(forced.status).toBe(303);
      expect(await env.db.knex('tickets').where({ id: ids.open }).first('title', 'status', 'comment')).toEqual({
        title: 'open, renamed',
        status: 'escalated',
        comment: 'open-comment',
      });
      await env.db.knex('tickets').where({ id: ids.open }).update({ title: 'open ticket' });
    });

    it('leaves a per-row field out of the page of a row that hides it, showing the rest read-only', async () => {
      const page = await support.get(`/admin/tickets/update/${ids.closed}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(readOnly('status', 'Status', '<span class="badge">done</span>'));
      expect(page.text).toContain(readOnly('open', 'Open', '<span class="badge no">No</span>'));
      expect(page.text).not.toContain('closed-comment');
      expect(page.text).not.toContain('f-comment');
      expect(page.text).not.toContain('name="comment"');
    });

    it('never shows a hidden column read-only, though the role reads it and may not write it', async () => {
      const page = await support.get(`/admin/pinned_tickets/update/${ids.open}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(readOnly('status', 'Status', '<span class="badge">escalated</span>'));
      expect(page.text).not.toContain('f-pin_hash');
      expect(page.text).not.toContain(PIN_HASH);
    });

    it('offers full access every field as an input, as the role reads some of them only', async () => {
      const page = await root.get(`/admin/tickets/update/${ids.closed}`);
      expect(page.status).toBe(200);
      for (const name of ['title', 'status', 'open', 'comment']) expect(page.text).toContain(`name="${name}"`);
      expect(page.text).toContain('closed-comment');
      expect(page.text).not.toContain('readonly');
      expect((await support.get(`/admin/tickets/update/${ids.closed}`)).text).toContain('class="field readonly"');
      const edited = await root.postForm(`/admin/tickets/form_update/${ids.closed}`, {
        title: 'closed ticket',
        status: 'new',
        open: 'false',
        comment: 'root-comment',
      });
      expect(edited.status).toBe(303);
      expect(await env.db.knex('tickets').where({ id: ids.closed }).first('status', 'comment')).toEqual({
        status: 'new',
        comment: 'root-comment',
      });
      await env.db.knex('tickets').where({ id: ids.closed }).update({ status: 'done', comment: 'closed-comment' });
    });
  });
}
