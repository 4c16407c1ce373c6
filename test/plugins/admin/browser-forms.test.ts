// The admin's forms walked through in Chromium (the shared browser and app: browser-walk.ts).
// The create and update forms: generated fields, a file upload, a many-to-many set, and forged posts refused.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk, kept } from './browser-walk';
import { startForgedSite } from './forged-site';

describeWalk('forms', { signedIn: true }, (walk) => {
  it('creates a row through the generated form', async () => {
    const { w, page, items } = walk;
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
    const { env, w, page } = walk;
    await page.goto('/admin/gadgets/');
    await Promise.all([page.waitForURL('**/admin/gadgets/create_page'), page.click('a.button:has-text("New gadget")')]);
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
    const { w, page, items } = walk;
    await page.goto('/admin/items/?page=3&rows-per-page-select=10');
    await Promise.all([page.waitForURL('**/admin/items/update/26'), page.click('tr[data-id="26"] a:has-text("Edit")')]);
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
    const { env, w, page } = walk;
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

  it('refuses a form posted without its CSRF token (403) and writes nothing', async () => {
    const { w, page, items } = walk;
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
    const { env, w, items } = walk;
    const before = await items();
    const site = await startForgedSite(`${env.server.url}/admin/items/form_create`, { name: 'forged elsewhere' });
    walk.forger = site.origin;
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
});
