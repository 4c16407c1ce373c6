// The admin's trash walked through in Chromium (the shared browser and app: browser-walk.ts).
// The trash: the soft-deleted rows, restored from the page.
import { beforeAll, expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk, shownIds } from './browser-walk';

describeWalk('trash', { signedIn: true }, (walk) => {
  beforeAll(async () => {
    // Three rows in the trash, as a bulk delete leaves them; the case starts from the list.
    await walk.env.db.knex('items').whereIn('id', [1, 2, 3]).update({ is_deleted: true, deleted_at: new Date() });
    await walk.page.goto('/admin/items/');
  });

  it('shows the soft-deleted rows in the trash and restores the chosen ones', async () => {
    const { w, page, deleted } = walk;
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
});
