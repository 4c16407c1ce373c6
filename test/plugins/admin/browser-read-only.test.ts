// An admin user holding the `support` role walked through in Chromium (Debian's, through
// playwright-core): its update page shows what it reads but may not write as labelled
// text, passes axe, and saving the form posts none of those fields.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { axeViolations } from './browser-axe';
import { watchedContext, type WatchedContext } from './browser-watch';
import { startAdminApp, type AdminEnv } from './fixture';
import { SUPPORT, seedTickets, ticketCatalogue, ticketMigrations, ticketView } from './tickets';

const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const present = existsSync(CHROMIUM);
if (!present && ci)
  throw new Error(`CI=true and ${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does)`);

describe.skipIf(!present)('read-only fields of a support user in the admin, in Chromium on koa / sqlite', () => {
  let browser: Browser;
  let env: AdminEnv;
  let w: WatchedContext;
  let ids: { open: number; closed: number };
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    env = await startAdminApp(
      koaHarness,
      'sqlite',
      { access: { roles: ticketCatalogue }, models: { tickets: ticketView } },
      { migrations: [ticketMigrations] },
    );
    ids = await seedTickets(env.db.knex);
    const id = await env.plugin.createAdminUser(SUPPORT.username, SUPPORT.password);
    await env.db.knex('admin_user_roles').insert({ admin_user_id: id, role: 'support' });
    w = await watchedContext(browser, env.server.url, 'koa-read-only');
  });
  afterAll(async () => {
    await w?.context.close();
    await env?.close();
    await browser?.close();
  });

  it('shows the fields it may not write as labelled text, passes axe, and saves the title alone', async () => {
    const { page } = w;
    await page.goto('/admin/login');
    await page.fill('#username', SUPPORT.username);
    await page.fill('#password', SUPPORT.password);
    await Promise.all([page.waitForURL('**/admin/'), page.click('form.login button[type=submit]')]);
    await page.goto(`/admin/tickets/update/${ids.open}`);
    expect(await page.$$eval('dl.field.readonly dt', (dts) => dts.map((dt) => dt.textContent))).toEqual([
      'Status',
      'Open',
      'Comment',
    ]);
    expect(await page.textContent('dd[aria-labelledby="f-comment"]')).toBe('open-comment');
    expect(await page.$$eval('form.record [name]', (els) => els.map((el) => el.getAttribute('name')))).toEqual([
      'csrf_token',
      '_state',
      'title',
    ]);
    await w.screenshot('read-only-update');
    expect(await axeViolations(page)).toEqual([]);
    await page.fill('#f-title', 'open, renamed');
    await Promise.all([page.waitForURL('**/admin/tickets/'), page.click('form.record button[type=submit]')]);
    expect(await env.db.knex('tickets').where({ id: ids.open }).first('title', 'status', 'comment')).toEqual({
      title: 'open, renamed',
      status: 'escalated',
      comment: 'open-comment',
    });
    expect(w.problems).toEqual([]);
  });
});
