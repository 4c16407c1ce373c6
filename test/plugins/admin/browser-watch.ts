// What the admin's Chromium walk-through watches on every page of a browser context: every
// request Chromium makes (so a request to another host shows), console errors, uncaught
// page errors, Content-Security-Policy violations, and the CSP header of every document.
// It also keeps a screenshot of each page under test-artifacts/admin/{under}/.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Where the walk-through's screenshots land (gitignored). */
export const ARTIFACTS = resolve(__dirname, '../../../test-artifacts/admin');

/** One browser context on the admin, and everything it saw. */
export interface WatchedContext {
  context: BrowserContext;
  page: Page;
  /** Every URL Chromium asked for, in order. */
  requested: string[];
  /** Console errors, page errors and CSP violations, as text. */
  problems: string[];
  /** Pages (HTML documents, not redirects) answered without a Content-Security-Policy header. */
  withoutCsp: string[];
  /** The requests Chromium made to a host other than `origin`. */
  elsewhere(): string[];
  /** Saves a full-page screenshot of `of` (the watched page by default) named `name`, numbered in order. */
  screenshot(name: string, of?: Page): Promise<void>;
}

/** Opens a fresh context (its own cookies) on `origin` with one watched page; one per `under` (`koa/list`), as it empties that screenshot folder. */
export async function watchedContext(browser: Browser, origin: string, under: string): Promise<WatchedContext> {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  const withoutCsp: string[] = [];
  const folder = join(ARTIFACTS, under);
  // The walk's own screenshots only: an earlier run's, numbered otherwise, would mislead.
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  let shots = 0;

  context.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', async (response) => {
    // A redirect's body is never shown, so only the pages themselves need the policy.
    if (response.request().resourceType() !== 'document' || (response.status() >= 300 && response.status() < 400))
      return;
    const type = (await response.headerValue('content-type')) ?? '';
    if (type.startsWith('text/html') && !(await response.headerValue('content-security-policy')))
      withoutCsp.push(response.url());
  });
  // A blocked load or inline script fires securitypolicyviolation in the page; the binding
  // is Chromium's own (DevTools), so the policy does not hide it.
  await page.exposeFunction('reportCspViolation', (text: string) => problems.push(`csp: ${text}`));
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
    window.reportCspViolation(event.violatedDirective + ' blocked ' + event.blockedURI))`);

  return {
    context,
    page,
    requested,
    problems,
    withoutCsp,
    elsewhere: () => requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin),
    async screenshot(name, of = page) {
      shots += 1;
      await of.screenshot({ path: join(folder, `${String(shots).padStart(2, '0')}-${name}.png`), fullPage: true });
    },
  };
}
