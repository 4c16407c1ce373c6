import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../../examples/app/src/server';
import { startExample, type ExampleServer } from '../../example/example-server';

// The docs pages in a real browser: Debian's chromium (never one a package downloads),
// driven by playwright-core. Without it the suite is skipped locally and fails under CI.
const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
const present = existsSync(CHROMIUM);
if (!present && ci)
  throw new Error(`CI=true and ${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does)`);

// One browser for every adapter: each case opens its own page.
let browser: Browser;
beforeAll(async () => {
  if (present) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!present).each(ADAPTERS)('/api/vN/docs in Chromium on %s', (adapter) => {
  let ex: ExampleServer;

  beforeAll(async () => {
    ex = await startExample('sqlite', { adapter });
  }, 60_000);
  afterAll(async () => {
    await ex?.close();
  });

  for (const version of ['v1', 'v2']) {
    it(`lists ${version}'s operations, logs no console error and asks no other host`, async () => {
      const doc = (await ex.client().get(`/api/${version}/openapi.json`)).body;
      const operations = Object.entries<Record<string, { operationId: string }>>(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
      );
      const page = await browser.newPage();
      const errors: string[] = [];
      const requested: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('request', (request) => requested.push(request.url()));

      const answer = await page.goto(`${ex.base}/api/${version}/docs`);
      expect(answer?.status()).toBe(200);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const shown = await page.$$eval('.opblock-summary', (blocks) =>
        blocks.map(
          (block) =>
            `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block.querySelector('[data-path]')?.getAttribute('data-path')}`,
        ),
      );
      expect([...shown].sort()).toEqual([...operations].sort());
      expect(await page.textContent('.info .title')).toContain(version);
      await page.close();

      expect(errors).toEqual([]);
      const origin = new URL(ex.base).origin;
      const elsewhere = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
      expect(elsewhere).toEqual([]);
      expect(requested).toContain(`${origin}/api/${version}/openapi.json`);
    }, 60_000);
  }
});
