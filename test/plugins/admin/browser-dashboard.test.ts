// The admin's dashboard walked through in Chromium (the shared browser and app: browser-walk.ts).
// The dashboard: the models with their row counts and charts.
import { expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk } from './browser-walk';

describeWalk('dashboard', { signedIn: true }, (walk) => {
  it('shows the dashboard: every model with its row count and a link to its list', async () => {
    const { w, page } = walk;
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
});
