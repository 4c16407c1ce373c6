// What the admin's Chromium walk-throughs share, one file per page type: Debian's chromium
// (never one a package downloads) driven by playwright-core, one browser per file, one app
// on sqlite and one watched context per adapter, and the checks every walk ends with (no
// other host asked, nothing blocked by the CSP, the CSP on every page). Without chromium a
// walk is skipped locally and fails under CI.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminOptions } from '@crudsmith/admin';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { watchedContext, type WatchedContext } from './browser-watch';
import { badgeMigrations, badgesView, BadgedTier } from './badges';
import { ADMIN, Gadget, itemsView, seed, startAdminApp, type AdminEnv } from './fixture';

const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const present = existsSync(CHROMIUM);
if (!present && ci)
  throw new Error(`CI=true and ${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does)`);

/** What the gadgets view's file store kept, by the value it answered for the column. */
export const kept = new Map<string, Buffer>();

// Items (soft delete) and gadgets (UUID keys) that the admin also creates, with a file field;
// tiers with a many-to-many set of badges.
const models: AdminOptions['models'] = {
  items: itemsView,
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
  badges: badgesView,
};

/** The ids of the rows the list (or trash) shows, in order. */
export const shownIds = (page: Page) =>
  page.$$eval('table.rows tbody tr', (rows) => rows.map((row) => row.getAttribute('data-id')));

/** One walk's app and browser context on one adapter (set before its first case). */
export interface Walk {
  env: AdminEnv;
  w: WatchedContext;
  page: Page;
  /** The origin of the forging page, the one other host a walk may open on purpose. */
  forger: string;
  /** The items table, by id. */
  items(): Promise<any[]>;
  /** The ids of the soft-deleted items. */
  deleted(): Promise<unknown[]>;
}

/**
 * Runs `cases` in Chromium over Koa, Express and Fastify on sqlite, each on a fresh app
 * with 25 items, two gadgets and a tier linked to two of three badges; `signedIn` signs
 * the page in first (it lands on the dashboard). Screenshots land in
 * `test-artifacts/admin/{adapter}/{pageType}/`.
 */
export function describeWalk(pageType: string, options: { signedIn: boolean }, cases: (walk: Walk) => void): void {
  let browser: Browser;
  beforeAll(async () => {
    if (present) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => browser?.close());

  describe.skipIf(!present).each([koaHarness, expressHarness, fastifyHarness])(
    `the admin's ${pageType} in Chromium on $name / sqlite`,
    (harness) => {
      const walk = { forger: '' } as Walk;
      walk.items = () => walk.env.db.knex('items').orderBy('id').select('*');
      walk.deleted = async () => (await walk.items()).filter((row) => Boolean(row.is_deleted)).map((row) => row.id);

      beforeAll(async () => {
        walk.env = await startAdminApp(
          harness,
          'sqlite',
          { eventIntegration: true, models },
          { migrations: [badgeMigrations] },
        );
        const { env } = walk;
        await seed(env.db, 25);
        await env.db.knex('badges').insert(['alpha', 'beta', 'gamma'].map((title) => ({ title })));
        await env.db.knex('tiers').insert({ name: 'gold' });
        await env.db.knex('tier_badges').insert([
          { tier_id: 1, badge_id: 1 },
          { tier_id: 1, badge_id: 2 },
        ]);
        walk.w = await watchedContext(browser, env.server.url, `${harness.name}/${pageType}`);
        walk.page = walk.w.page;
        if (options.signedIn) {
          await walk.page.goto('/admin/login');
          await walk.page.fill('#username', ADMIN.username);
          await walk.page.fill('#password', ADMIN.password);
          await Promise.all([walk.page.waitForURL('**/admin/'), walk.page.click('form.login button[type=submit]')]);
        }
      });
      afterAll(async () => {
        await walk.w?.context.close();
        await walk.env?.close();
      });

      cases(walk);

      it('asked no other host but the forging page, blocked nothing by the CSP, and sent the CSP with every page', () => {
        const { w, forger } = walk;
        expect(w.elsewhere()).toEqual(forger ? [`${forger}/`] : []);
        expect(w.requested.some((url) => url.includes('/admin/static/'))).toBe(true);
        expect(w.withoutCsp).toEqual([]);
        expect(w.problems).toEqual([]);
      });
    },
  );
}
