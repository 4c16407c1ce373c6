// The admin's events walked through in Chromium (the shared browser and app: browser-walk.ts).
// The event log: the session's sign-in and writes, filtered by type.
import { beforeAll, expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk } from './browser-walk';
import { ADMIN } from './fixture';

describeWalk('events', { signedIn: true }, (walk) => {
  beforeAll(async () => {
    // After the page's sign-in: a create, an update, a bulk delete and two restores, by the same admin.
    const client = await walk.env.signedIn();
    const answers = [
      await client.postForm('/admin/items/form_create', { name: 'made in chromium', price: '12.5' }),
      await client.postForm('/admin/items/form_update/26', { name: 'changed in chromium' }),
      await client.request('DELETE', '/admin/items/bulk-delete', {
        json: { ids: [1, 2, 3] },
        headers: { 'x-csrf-token': client.csrf },
      }),
      await client.postForm('/admin/items/trash/restore', { ids: ['1', '2'] }),
    ];
    expect(answers.map((a) => a.status)).toEqual([303, 303, 200, 303]);
  });

  it("shows the event log: this session's sign-in and writes, newest first, filtered by type", async () => {
    const { w, page } = walk;
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
});
