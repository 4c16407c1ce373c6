// axe-core, run inside the page under test: its source is evaluated through DevTools (as
// an inline script it would be refused by the admin's CSP, which stays on), then it checks
// the rendered page against WCAG 2.0, 2.1 and 2.2 A and AA.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The page's WCAG A/AA violations, one line each: rule, impact and the first elements concerned. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Once per document: a navigation brings a fresh page without it.
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(SOURCE);
  // A string, run in the page: the test itself compiles without the DOM's types.
  const violations = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } });
    return result.violations.map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
  })()`)) as string[];
  return violations;
}

/** What makes the page scroll sideways as a whole: nothing, or the elements reaching past the viewport. */
export async function pageScrollsSideways(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return [];
    return [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.scroll, table'))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + String(el.className) + ' right=' + Math.round(el.getBoundingClientRect().right));
  })()`)) as string[];
}

/** The visible buttons and form controls smaller than 24 by 24 CSS pixels (WCAG 2.2 target size). */
export async function smallTargets(page: Page): Promise<string[]> {
  return page.$$eval('button, a.button, input:not([type="hidden"]), select, summary, header a', (elements) =>
    elements
      .map((el) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && box.height > 0 && (box.width < 24 || box.height < 24))
      .map(
        ({ el, box }) =>
          `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} ${Math.round(box.width)}x${Math.round(box.height)}`,
      ),
  );
}
