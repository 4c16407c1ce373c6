import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminOptions } from '@crudsmith/admin';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { axeViolations, pageScrollsSideways, smallTargets } from './browser-axe';
import { watchedContext, type WatchedContext } from './browser-watch';
import { badgeMigrations, Badge, BadgedTier } from './badges';
import { startForgedSite } from './forged-site';
import { ADMIN, Gadget, Item, ItemCreate, ItemUpdate, seed, startAdminApp, type AdminEnv } from './fixture';

// The admin walked through in a real browser: Debian's chromium (never one a package
// downloads), driven by playwright-core, one browser for every adapter, one context per
// walk. Without chromium the suite is skipped locally and fails under CI.
const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const present = existsSync(CHROMIUM);
if (!present && ci)
  throw new Error(`CI=true and ${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does)`);

let browser: Browser;
beforeAll(async () => {
  if (present) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
});
afterAll(async () => browser?.close());

/** What the gadgets view's file store kept, by the value it answered for the column. */
const kept = new Map<string, Buffer>();

// Items (soft delete) and gadgets (UUID keys) that the admin also creates, with a file field;
// tiers with a many-to-many set of badges.
const models: AdminOptions['models'] = {
  items: {
    model: Item,
    allowedActions: ['view', 'create', 'update', 'delete'],
    createSchema: ItemCreate,
    updateSchema: ItemUpdate,
    displayField: 'name',
  },
  gadgets: {
    model: Gadget,
    allowedActions: ['view', 'create', 'update'],
    createSchema: ['uid', 'label', 'manual'],
    updateSchema: ['label', 'manual'],
    files: {
      manual: {
        maxBytes: 1000,
        types: ['text/plain'],
        store: async (file) => {
          const key = `kept/${kept.size + 1}/${file.size}`;
          kept.set(key, file.data);
          return key;
        },
      },
    },
  },
  tiers: {
    model: BadgedTier,
    allowedActions: ['view', 'create', 'update'],
    createSchema: ['name'],
    updateSchema: ['name'],
    displayField: 'name',
  },
  badges: {
    model: Badge,
    allowedActions: ['view'],
    createSchema: ['title'],
    updateSchema: ['title'],
    displayField: 'title',
  },
};

/** The ids of the rows the list (or trash) shows, in order. */
const shownIds = (page: Page) =>
  page.$$eval('table.rows tbody tr', (rows) => rows.map((row) => row.getAttribute('data-id')));

describe.skipIf(!present).each([koaHarness, expressHarness, fastifyHarness])(
  'the admin in Chromium on $name / sqlite',
  (harness) => {
    let env: AdminEnv;
    let w: WatchedContext;
    let page: Page;
    /** The origin of the forging page, the one other host the walk opens on purpose. */
    let forger = '';
    const items = () => env.db.knex('items').orderBy('id').select('*');
    const deleted = async () => (await items()).filter((row) => Boolean(row.is_deleted)).map((row) => row.id);

    beforeAll(async () => {
      env = await startAdminApp(
        harness,
        'sqlite',
        { eventIntegration: true, models },
        { migrations: [badgeMigrations] },
      );
      await seed(env.db, 25);
      await env.db.knex('badges').insert(['alpha', 'beta', 'gamma'].map((title) => ({ title })));
      await env.db.knex('tiers').insert({ name: 'gold' });
      await env.db.knex('tier_badges').insert([
        { tier_id: 1, badge_id: 1 },
        { tier_id: 1, badge_id: 2 },
      ]);
      w = await watchedContext(browser, env.server.url, harness.name);
      page = w.page;
    });
    afterAll(async () => {
      await w?.context.close();
      await env?.close();
    });

    it('signs in through the login form, the page carrying its strict CSP', async () => {
      const answer = await page.goto('/admin/');
      expect(answer?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe('/admin/login');
      const policy = (await answer?.headerValue('content-security-policy')) ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      await w.screenshot('login');
      expect(await axeViolations(page)).toEqual([]);
      await page.fill('#username', ADMIN.username);
      await page.fill('#password', ADMIN.password);
      await Promise.all([page.waitForURL('**/admin/'), page.click('form.login button[type=submit]')]);
      expect(await page.textContent('header .who')).toBe(ADMIN.username);
      expect(w.problems).toEqual([]);
    });

    it('shows the dashboard: every model with its row count and a link to its list', async () => {
      const rows = await page.$$eval('#dashboard-content tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent?.trim())),
      );
      expect(rows).toContainEqual(['Items', '25']);
      // Each model's chart of writes a day, drawn on the server.
      expect(await page.locator('#dashboard-content svg.activity[role="img"]').count()).toBe(
        await page.locator('table.models tbody tr').count(),
      );
      expect(rows).toContainEqual(['Gadgets', '2']);
      // htmx ran: it was loaded from the admin's own static route and processed the page.
      expect(await page.evaluate('typeof window.htmx')).toBe('object');
      await w.screenshot('dashboard');
      expect(await axeViolations(page)).toEqual([]);
      expect(w.problems).toEqual([]);
    });

    it('lists the rows, searches and pages through htmx partials', async () => {
      await Promise.all([page.waitForURL('**/admin/items/'), page.click('#dashboard-content a[href="/admin/items/"]')]);
      expect(await shownIds(page)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
      expect(await page.textContent('.pager span')).toContain('25 rows · page 1 of 3');
      await w.screenshot('list');
      expect(await axeViolations(page)).toEqual([]);

      const next = page.waitForResponse(
        (r) => r.url().includes('/admin/items/get_model_list') && r.url().includes('page=2'),
      );
      await page.click('.pager a:has-text("Next")');
      const paged = await next;
      expect(paged.status()).toBe(200);
      expect(paged.request().headers()['hx-request']).toBe('true');
      await page.waitForSelector('.pager span:has-text("page 2 of 3")');
      expect(await shownIds(page)).toEqual(['11', '12', '13', '14', '15', '16', '17', '18', '19', '20']);
      expect(new URL(page.url()).searchParams.get('page')).toBe('2');
      await w.screenshot('list-page-2');

      await page.selectOption('select[name="column-to-search"]', 'name');
      await page.fill('input[name="search"]', 'ITEM-2');
      const searched = page.waitForResponse(
        (r) => r.url().includes('/admin/items/get_model_list') && r.url().includes('search=ITEM-2'),
      );
      await page.click('form.search button[type=submit]');
      expect((await searched).request().headers()['hx-request']).toBe('true');
      await page.waitForSelector('.pager span:has-text("6 rows")');
      expect(await shownIds(page)).toEqual(['20', '21', '22', '23', '24', '25']);
      await w.screenshot('list-search');

      // A column filter narrows the search's rows, and the address keeps both.
      await page.click('details.filters summary');
      await page.fill('input[name="f.price.from"]', '22');
      await page.fill('input[name="f.price.to"]', '24');
      const filtered = page.waitForResponse((r) => r.url().includes('f.price.from=22'));
      await page.click('form.search button[type=submit]');
      await filtered;
      await page.waitForSelector('.pager span:has-text("3 rows")');
      expect(await shownIds(page)).toEqual(['22', '23', '24']);
      expect(new URL(page.url()).searchParams.get('f.price.to')).toBe('24');
      expect(await axeViolations(page)).toEqual([]);
      expect(w.problems).toEqual([]);
    });

    it('creates a row through the generated form', async () => {
      await page.goto('/admin/items/');
      await Promise.all([page.waitForURL('**/admin/items/create_page'), page.click('a.button:has-text("New item")')]);
      expect(await page.getAttribute('#f-name', 'required')).not.toBeNull();
      await page.fill('#f-name', 'made in chromium');
      await page.fill('#f-category', 'browser');
      await page.fill('#f-price', '12.5');
      await page.check('#f-in_stock');
      await w.screenshot('create');
      expect(await axeViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL('**/admin/items/'), page.click('form.record button[type=submit]')]);
      const made = (await items()).find((row) => row.name === 'made in chromium');
      expect(made).toMatchObject({ id: 26, category: 'browser', price: 12.5 });
      expect(Boolean(made.in_stock)).toBe(true);
      expect(w.problems).toEqual([]);
    });

    it('creates a row with a file upload, sent as a multipart form and kept by the view', async () => {
      await page.goto('/admin/gadgets/');
      await Promise.all([
        page.waitForURL('**/admin/gadgets/create_page'),
        page.click('a.button:has-text("New gadget")'),
      ]);
      expect(await page.getAttribute('form.record', 'enctype')).toBe('multipart/form-data');
      const uid = randomUUID();
      await page.fill('#f-uid', uid);
      await page.fill('#f-label', 'with a manual');
      await page.setInputFiles('#f-manual', {
        name: 'manual.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('read me first\n'),
      });
      await w.screenshot('create-with-file');
      const posted = page.waitForRequest((r) => r.url().endsWith('/admin/gadgets/form_create'));
      await Promise.all([page.waitForURL('**/admin/gadgets/'), page.click('form.record button[type=submit]')]);
      expect((await posted).headers()['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      const row = await env.db.knex('gadgets').where({ uid }).first();
      expect(row).toMatchObject({ label: 'with a manual', manual: expect.stringMatching(/^kept\/\d+\/14$/) });
      expect(kept.get(row.manual)?.toString()).toBe('read me first\n');
      expect(await page.textContent(`tr[data-id="${uid}"]`)).toContain(row.manual);
      expect(w.problems).toEqual([]);
    });

    it('updates only the changed field of a row', async () => {
      await page.goto('/admin/items/?page=3&rows-per-page-select=10');
      await Promise.all([
        page.waitForURL('**/admin/items/update/26'),
        page.click('tr[data-id="26"] a:has-text("Edit")'),
      ]);
      expect(await page.inputValue('#f-name')).toBe('made in chromium');
      await page.fill('#f-name', 'changed in chromium');
      await w.screenshot('update');
      expect(await axeViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL('**/admin/items/'), page.click('form.record button[type=submit]')]);
      expect((await items()).find((row) => row.id === 26)).toMatchObject({
        name: 'changed in chromium',
        category: 'browser',
        price: 12.5,
      });
      expect(w.problems).toEqual([]);
    });

    it('edits a many-to-many set: searches the multi-select through the server, keeps the chosen, saves the new set', async () => {
      const linked = async () =>
        (await env.db.knex('tier_badges').where({ tier_id: 1 }).orderBy('badge_id').select('badge_id')).map((r) =>
          Number(r.badge_id),
        );
      await page.goto('/admin/tiers/update/1');
      const chosen = () => page.$$eval('#f-badges option:checked', (options) => options.map((o) => o.textContent));
      expect(await chosen()).toEqual(['alpha', 'beta']);
      const looked = page.waitForResponse((r) => r.url().includes('/admin/tiers/lookup/badges?q=gam'));
      await page.fill('input.lookup[aria-controls="f-badges"]', 'gam');
      expect((await looked).status()).toBe(200);
      await page.waitForSelector('#f-badges option:has-text("gamma")');
      // The search replaced the others but kept the chosen ones.
      expect(await page.$$eval('#f-badges option', (options) => options.map((o) => o.textContent))).toEqual([
        'alpha',
        'beta',
        'gamma',
      ]);
      await page.selectOption('#f-badges', ['2', '3']);
      await w.screenshot('many-to-many');
      expect(await axeViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL('**/admin/tiers/'), page.click('form.record button[type=submit]')]);
      expect(await linked()).toEqual([2, 3]);
      expect(w.problems).toEqual([]);
    });

    it('deletes the selected rows with one request carrying the CSRF header, and shows the refreshed list', async () => {
      await page.goto('/admin/items/');
      for (const id of ['1', '2', '3']) await page.check(`tr[data-id="${id}"] input.select-row`);
      page.once('dialog', (dialog) => void dialog.accept());
      const answered = page.waitForResponse((r) => r.url().includes('/admin/items/bulk-delete'));
      await page.click('button.bulk-delete');
      const answer = await answered;
      expect(answer.request().method()).toBe('DELETE');
      expect(answer.request().headers()['x-csrf-token']).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(answer.request().postDataJSON()).toEqual({ ids: ['1', '2', '3'] });
      expect(answer.status()).toBe(200);
      await page.waitForSelector('tr[data-id="1"]', { state: 'detached' });
      expect(await shownIds(page)).toEqual(['4', '5', '6', '7', '8', '9', '10', '11', '12', '13']);
      expect(await deleted()).toEqual([1, 2, 3]);
      await w.screenshot('bulk-delete');
      expect(w.problems).toEqual([]);
    });

    it('shows the soft-deleted rows in the trash and restores the chosen ones', async () => {
      await Promise.all([page.waitForURL('**/admin/items/trash'), page.click('#list-content a:has-text("Trash")')]);
      expect([...(await shownIds(page))].sort()).toEqual(['1', '2', '3']);
      await w.screenshot('trash');
      expect(await axeViolations(page)).toEqual([]);
      await page.check('tr[data-id="1"] input[name="ids"]');
      await page.check('tr[data-id="2"] input[name="ids"]');
      const restored = page.waitForResponse((r) => r.url().endsWith('/admin/items/trash/restore'));
      await page.click('button:has-text("Restore chosen")');
      expect((await restored).status()).toBe(303);
      await page.waitForURL('**/admin/items/trash');
      expect(await shownIds(page)).toEqual(['3']);
      expect(await deleted()).toEqual([3]);
      await w.screenshot('trash-restored');
      expect(w.problems).toEqual([]);
    });

    it("shows the event log: this session's sign-in and writes, newest first, filtered by type", async () => {
      await Promise.all([page.waitForURL('**/admin/management/events'), page.click('header a:has-text("Events")')]);
      const types = await page.$$eval('tbody tr[data-event]', (rows) =>
        rows.map((row) => row.children[1].getAttribute('data-type')),
      );
      for (const type of ['sign_in', 'create', 'update', 'delete', 'restore']) expect(types).toContain(type);
      expect(types.indexOf('restore')).toBeLessThan(types.indexOf('sign_in'));
      expect(await page.textContent('tbody')).not.toContain(ADMIN.password);
      await w.screenshot('events');
      expect(await axeViolations(page)).toEqual([]);
      await page.selectOption('select[name="type"]', 'restore');
      await Promise.all([
        page.waitForURL('**/admin/management/events?type=restore*'),
        page.click('form.search button[type=submit]'),
      ]);
      const restores = await page.$$eval('tbody tr[data-event]', (rows) =>
        rows.map((row) => `${row.children[1].textContent}:${row.children[4].textContent}`),
      );
      expect(restores.sort()).toEqual(['Restore:1', 'Restore:2']);
      await w.screenshot('events-restores');
      expect(w.problems).toEqual([]);
    });

    it('refuses a form posted without its CSRF token (403) and writes nothing', async () => {
      const before = await items();
      const seen = w.problems.length;
      await page.goto('/admin/items/create_page');
      await page.$eval('form.record input[name="csrf_token"]', (input) => input.remove());
      await page.fill('#f-name', 'forged');
      const posted = page.waitForResponse((r) => r.url().endsWith('/admin/items/form_create'));
      await page.click('form.record button[type=submit]');
      const answer = await posted;
      expect(answer.status()).toBe(403);
      expect(answer.request().postData()).not.toContain('csrf_token');
      await page.waitForLoadState();
      expect(await page.textContent('main')).toContain('did not come from this site');
      expect(await items()).toEqual(before);
      await w.screenshot('forged-form-refused');
      expect(await axeViolations(page)).toEqual([]);
      // Chromium logs every 4xx document it loads; this one refusal is the expected one, and the only one.
      expect(w.problems.splice(seen)).toEqual([
        'console: Failed to load resource: the server responded with a status of 403 (Forbidden)',
      ]);
    });

    it("refuses another site's forged form, posted with the admin's cookies, with 403 and writes nothing", async () => {
      const before = await items();
      const site = await startForgedSite(`${env.server.url}/admin/items/form_create`, { name: 'forged elsewhere' });
      forger = site.origin;
      try {
        const other = await w.context.newPage();
        await other.goto(site.origin);
        const posted = other.waitForResponse((r) => r.url().endsWith('/admin/items/form_create'));
        await other.click('button');
        const answer = await posted;
        // Same site (another port), so the SameSite cookies went along: the token alone refused it.
        expect((await answer.request().allHeaders()).cookie).toBeTruthy();
        expect(answer.status()).toBe(403);
        await other.waitForLoadState();
        await w.screenshot('forged-site-refused', other);
        await other.close();
      } finally {
        await site.close();
      }
      expect(await items()).toEqual(before);
    });

    it('switches to the dark scheme with the header toggle, keeps it across pages by its cookie, and stays accessible', async () => {
      await page.goto('/admin/items/');
      const light = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      await page.click('button.scheme-toggle');
      expect(await page.getAttribute('html', 'data-scheme')).toBe('dark');
      expect(await page.getAttribute('button.scheme-toggle', 'aria-pressed')).toBe('true');
      await page.goto('/admin/');
      expect(await page.getAttribute('html', 'data-scheme')).toBe('dark');
      const dark = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(dark).not.toBe(light);
      await w.screenshot('dashboard-dark');
      expect(await axeViolations(page)).toEqual([]);
      await page.goto('/admin/items/');
      await w.screenshot('list-dark');
      expect(await axeViolations(page)).toEqual([]);
      await page.click('button.scheme-toggle');
      expect(await page.getAttribute('html', 'data-scheme')).toBe('light');
      expect(w.problems).toEqual([]);
    }, 60_000);

    it('switches to German with the header link, keeps it by its cookie, fits 390 px in German, and switches back', async () => {
      await page.goto('/admin/items/');
      await Promise.all([page.waitForURL('**/admin/items/'), page.click('header a[hreflang=de]')]);
      expect(await page.getAttribute('html', 'lang')).toBe('de');
      expect(await page.textContent('header a.signout')).toBe('Abmelden');
      expect(await page.textContent('#list-content .pager span')).toMatch(/^\d+ Zeilen · Seite 1 von \d+$/);
      expect(await page.textContent('#list-content a.button.primary')).toBe('Item anlegen');
      // Dates and numbers for the German reader: in the browser's zone, decimals with a comma.
      expect(await page.textContent('#list-content tbody time')).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
      await page.goto('/admin/items/?page=3');
      expect(await page.textContent('tr[data-id="26"] td.num:has-text(",")')).toBe('12,5');
      await w.screenshot('list-de');
      expect(await axeViolations(page)).toEqual([]);
      await page.goto('/admin/');
      expect(await page.textContent('h1')).toBe('Übersicht');
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const path of ['/admin/', '/admin/items/', '/admin/items/create_page']) {
          await page.goto(path);
          expect(await pageScrollsSideways(page), path).toEqual([]);
          expect(await smallTargets(page), path).toEqual([]);
        }
        await w.screenshot('create-de-390');
      } finally {
        await page.setViewportSize({ width: 1280, height: 720 });
      }
      await Promise.all([page.waitForURL('**/admin/items/create_page'), page.click('header a[hreflang=en]')]);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(w.problems).toEqual([]);
    }, 90_000);

    it('fits a 390 px phone: no page-wide horizontal scroll, lists scrolling in their own box, tap targets of 24 px at least', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const [path, name] of [
          ['/admin/', 'dashboard'],
          ['/admin/items/', 'list'],
          ['/admin/items/create_page', 'create'],
          ['/admin/items/update/26', 'update'],
          ['/admin/items/trash', 'trash'],
          ['/admin/management/events', 'events'],
        ] as const) {
          await page.goto(path);
          expect(await pageScrollsSideways(page), path).toEqual([]);
          expect(await smallTargets(page), path).toEqual([]);
          await w.screenshot(`${name}-390`);
          expect(await axeViolations(page), path).toEqual([]);
        }
        await page.goto('/admin/items/');
        const box = await page.$eval('#list-content .scroll', (el) => ({
          scrolls: el.scrollWidth > el.clientWidth,
          width: el.getBoundingClientRect().width,
        }));
        expect(box.scrolls).toBe(true);
        expect(box.width).toBeLessThanOrEqual(390);
      } finally {
        await page.setViewportSize({ width: 1280, height: 720 });
      }
      expect(w.problems).toEqual([]);
    }, 120_000);

    it('reaches every action of the list by keyboard, with a visible focus', async () => {
      await page.goto('/admin/items/');
      const reached: string[] = [];
      for (let i = 0; i < 90; i += 1) {
        await page.keyboard.press('Tab');
        const focus = (await page.evaluate(`(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        return { text: (el.textContent || '').trim() || el.getAttribute('aria-label') || el.getAttribute('name') || el.tagName, outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      })()`)) as { text: string; outline: boolean } | null;
        if (!focus) continue;
        expect(focus.outline, focus.text).toBe(true);
        reached.push(focus.text);
      }
      for (const action of ['Search', 'New item', 'Delete selected', 'Trash', 'Next', 'Edit', 'Sign out'])
        expect(reached).toContain(action);
      expect(w.problems).toEqual([]);
    });

    it('signs out: the session ends and the pages send back to the login', async () => {
      await page.goto('/admin/');
      await Promise.all([page.waitForURL('**/admin/login'), page.click('header a.signout')]);
      await w.screenshot('signed-out');
      await page.goto('/admin/items/');
      expect(new URL(page.url()).pathname).toBe('/admin/login');
      expect(await env.db.knex('admin_events').where({ event_type: 'sign_out' }).first()).toBeDefined();
    });

    it('asked no other host but the forging page, blocked nothing by the CSP, and sent the CSP with every page', () => {
      expect(w.elsewhere()).toEqual([`${forger}/`]);
      expect(w.requested.some((url) => url.includes('/admin/static/'))).toBe(true);
      expect(w.withoutCsp).toEqual([]);
      expect(w.problems).toEqual([]);
    });
  },
);
