// The admin's list walked through in Chromium (the shared browser and app: browser-walk.ts).
// The list: search, paging and a column filter through htmx, bulk delete, and every action by keyboard.
import { expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk, shownIds } from './browser-walk';

describeWalk('list', { signedIn: true }, (walk) => {
  it('lists the rows, searches and pages through htmx partials', async () => {
    const { w, page } = walk;
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

  it('deletes the selected rows with one request carrying the CSRF header, and shows the refreshed list', async () => {
    const { w, page, deleted } = walk;
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

  it('reaches every action of the list by keyboard, with a visible focus', async () => {
    const { w, page } = walk;
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
});
