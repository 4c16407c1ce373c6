// The admin's sign-in walked through in Chromium (the shared browser and app: browser-walk.ts).
// The login page: signing in through its form, and signing out.
import { expect, it } from 'vitest';
import { axeViolations } from './browser-axe';
import { describeWalk } from './browser-walk';
import { ADMIN } from './fixture';

describeWalk('sign-in', { signedIn: false }, (walk) => {
  it('signs in through the login form, the page carrying its strict CSP', async () => {
    const { w, page } = walk;
    const answer = await page.goto('/admin/');
    expect(answer?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    const policy = (await answer?.headerValue('content-security-policy')) ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    await w.screenshot('login');
    expect(await axeViolations(page)).toEqual([]);
    await page.fill('#username', ADMIN.username);
    await page.fill('#password', ADMIN.password);
    await Promise.all([page.waitForURL('**/admin/'), page.click('form.login button[type=submit]')]);
    expect(await page.textContent('header .who')).toBe(ADMIN.username);
    expect(w.problems).toEqual([]);
  });

  it('signs out: the session ends and the pages send back to the login', async () => {
    const { env, w, page } = walk;
    await page.goto('/admin/');
    await Promise.all([page.waitForURL('**/admin/login'), page.click('header a.signout')]);
    await w.screenshot('signed-out');
    await page.goto('/admin/items/');
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    expect(await env.db.knex('admin_events').where({ event_type: 'sign_out' }).first()).toBeDefined();
  });
});
