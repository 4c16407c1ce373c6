// The admin's look walked through in Chromium (the shared browser and app: browser-walk.ts).
// The look across page types: the dark scheme, German, and a 390 px phone.
import { beforeAll, expect, it } from 'vitest';
import { axeViolations, pageScrollsSideways, smallTargets } from './browser-axe';
import { describeWalk } from './browser-walk';

describeWalk('look', { signedIn: true }, (walk) => {
  beforeAll(async () => {
    // The row a create leaves: a decimal price on the list's third page, and an edit page.
    const row = { name: 'made in chromium', category: 'browser', price: 12.5, in_stock: true, created_at: new Date() };
    await walk.env.db.knex('items').insert(row);
  });

  it('switches to the dark scheme with the header toggle, keeps it across pages by its cookie, and stays accessible', async () => {
    const { w, page } = walk;
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
    const { w, page } = walk;
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
    const { w, page } = walk;
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
});
