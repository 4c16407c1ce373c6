// An admin user holding the `viewer` role walked through in Chromium (Debian's, through
// playwright-core): it signs in, sees the memos its role may read (the shared one, without
// its secret), is offered no create, edit or delete, and a write it forces from the page
// (a POST carrying its own CSRF token) is refused with 403 and writes nothing.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { axeViolations } from './browser-axe';
import { watchedContext, type WatchedContext } from './browser-watch';
import { startAdminApp, type AdminEnv } from './fixture';
import { VIEWER, catalogue, memoMigrations, memoView, seedMemos } from './memos';

const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const present = existsSync(CHROMIUM);
if (!present && ci)
  throw new Error(`CI=true and ${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does)`);

describe.skipIf(!present)('a viewer in the admin, in Chromium on koa / sqlite', () => {
  let browser: Browser;
  let env: AdminEnv;
  let w: WatchedContext;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    env = await startAdminApp(
      koaHarness,
      'sqlite',
      { access: { roles: catalogue }, models: { memos: memoView } },
      { migrations: [memoMigrations] },
    );
    await seedMemos(env.db.knex);
    const id = await env.plugin.createAdminUser(VIEWER.username, VIEWER.password);
    await env.db.knex('admin_user_roles').insert({ admin_user_id: id, role: 'viewer' });
    w = await watchedContext(browser, env.server.url, 'koa-viewer');
  });
  afterAll(async () => {
    await w?.context.close();
    await env?.close();
    await browser?.close();
  });

  it('sees the lists its role reads, no edit or delete, and a forced POST is refused', async () => {
    const { page } = w;
    await page.goto('/admin/login');
    await page.fill('#username', VIEWER.username);
    await page.fill('#password', VIEWER.password);
    await Promise.all([page.waitForURL('**/admin/'), page.click('form.login button[type=submit]')]);
    expect(await page.textContent('header .who')).toBe(VIEWER.username);
    // Neither the admin users, the roles nor the event log are offered.
    expect(await page.$$eval('header a', (links) => links.map((a) => a.getAttribute('href')))).not.toContain(
      '/admin/management/admin-users/',
    );
    await Promise.all([page.waitForURL('**/admin/memos/'), page.click('header nav a[href="/admin/memos/"]')]);
    expect(await page.$$eval('table.rows tbody tr', (rows) => rows.map((r) => r.textContent))).toEqual([
      expect.stringContaining('shared memo'),
    ]);
    expect(await page.textContent('main')).not.toContain('secret');
    expect(await page.$$('a[href$="/create_page"], button.bulk-delete, a[href*="/update/"], input.select-row')).toEqual(
      [],
    );
    await w.screenshot('viewer-list');
    expect(await axeViolations(page)).toEqual([]);
    // The page's own CSRF token does not make a write its role lacks pass.
    const token = JSON.parse((await page.getAttribute('body', 'hx-headers')) ?? '{}')['X-CSRF-Token'] as string;
    const forced = await page.evaluate(async (token) => {
      const form = new URLSearchParams({ csrf_token: token, title: 'forged', shared: 'true' });
      const created = await fetch('/admin/memos/form_create', { method: 'POST', body: form });
      const removed = await fetch('/admin/memos/bulk-delete', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json', 'x-csrf-token': token },
        body: JSON.stringify({ ids: [1] }),
      });
      return [created.status, removed.status];
    }, token);
    expect(forced).toEqual([403, 403]);
    expect(await env.db.knex('memos').where({ title: 'forged' }).first()).toBeUndefined();
    expect(await env.db.knex('memos').count({ n: '*' }).first()).toMatchObject({ n: 2 });
    expect(w.elsewhere()).toEqual([]);
    expect(w.withoutCsp).toEqual([]);
    // Chromium logs each refused fetch; these two are the expected ones, and the only problems.
    expect(w.problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 403 (Forbidden)',
      'console: Failed to load resource: the server responded with a status of 403 (Forbidden)',
    ]);
  });
});
