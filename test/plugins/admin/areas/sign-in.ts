import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { ADMIN, startAdminApp, type AdminEnv } from '../fixture';

/** Sign-in, sessions, sign-out and the sign-in lockout of the admin. */
export function signInArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin sign-in on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine);
    });
    afterAll(async () => env?.close());

    it('redirects the mount path without its slash to the dashboard', async () => {
      const answer = await env.client().get('/admin');
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toBe('/admin/');
    });

    it('sends a page request without a session to the login page (303)', async () => {
      const answer = await env.client().get('/admin/');
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/admin/login');
    });

    it('answers htmx without a session 401 with HX-Redirect, and JSON 401 JSON', async () => {
      const htmx = await env.client().get('/admin/items/get_model_list', { 'HX-Request': 'true' });
      expect(htmx.status).toBe(401);
      expect(htmx.headers.get('hx-redirect')).toBe('/admin/login');
      const json = await env.client().request('DELETE', '/admin/items/bulk-delete', { json: { ids: [1] } });
      expect(json.status).toBe(401);
      expect(json.json).toEqual({ detail: 'Not authenticated' });
    });

    it('shows the login page with a CSRF field bound to a pre-login cookie, under the strict page headers', async () => {
      const client = env.client();
      const page = await client.get('/admin/login');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toMatch(/name="csrf_token" value="[A-Za-z0-9_-]{43}"/);
      const prelogin = page.setCookies.get('cs_admin_login')!;
      expect(prelogin).toMatch(/HttpOnly/i);
      expect(prelogin).toMatch(/Path=\/admin/i);
      expect(prelogin).toMatch(/SameSite=Strict/i);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.text).not.toMatch(/<script>|<script(?![^>]*src=)[^>]*>|<style|style="/);
    });

    it('signs in: 303 to the dashboard with an HttpOnly, SameSite, mount-limited session cookie', async () => {
      const client = env.client();
      const answer = await client.login();
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/admin/');
      const cookie = answer.setCookies.get('cs_admin')!;
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\/admin(;|$)/i);
      expect(cookie).not.toMatch(/Secure/i);
      const dashboard = await client.get('/admin/');
      expect(dashboard.status).toBe(200);
      expect(dashboard.headers.get('cache-control')).toBe('no-store');
      expect(dashboard.text).toContain(ADMIN.username);
      expect((await client.get('/admin/login')).status).toBe(303);
    });

    it('accepts the username in another case and NFKC form', async () => {
      expect((await env.client().login('ROOT', ADMIN.password)).status).toBe(303);
    });

    it('refuses a wrong password with 401, a generic message and no session cookie', async () => {
      const client = env.client();
      const wrong = await client.login(ADMIN.username, 'not the password at all');
      const unknown = await env.client().login('nobody-here', 'not the password at all');
      for (const answer of [wrong, unknown]) {
        expect(answer.status).toBe(401);
        expect(answer.text).toContain('Incorrect username or password.');
        expect(answer.setCookies.has('cs_admin')).toBe(false);
      }
    });

    it('refuses a login form without its pre-login token (login CSRF) with 403', async () => {
      const client = env.client();
      await client.get('/admin/login');
      const forged = await client.request('POST', '/admin/login', {
        form: { csrf_token: 'x'.repeat(43), username: ADMIN.username, password: ADMIN.password },
      });
      expect(forged.status).toBe(403);
      expect(forged.setCookies.has('cs_admin')).toBe(false);
      const cookieless = await env
        .client()
        .request('POST', '/admin/login', { form: { username: ADMIN.username, password: ADMIN.password } });
      expect(cookieless.status).toBe(403);
    });

    it('signs out: the session ends and the cookie is cleared', async () => {
      const client = await env.signedIn();
      const stolen = client.jar.get('cs_admin')!;
      const out = await client.get('/admin/logout');
      expect(out.status).toBe(303);
      expect(out.headers.get('location')).toBe('/admin/login');
      expect(out.setCookies.get('cs_admin')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
      const replay = env.client();
      replay.jar.set('cs_admin', stolen);
      expect((await replay.get('/admin/')).status).toBe(303);
    });

    it('locks an account after the threshold of failures: 429 with Retry-After, even for the right password', async () => {
      await env.plugin.createAdminUser('locked', ADMIN.password);
      for (let i = 0; i < 3; i++) expect((await env.client().login('locked', 'wrong password here')).status).toBe(401);
      const locked = await env.client().login('locked', ADMIN.password);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
      expect(locked.setCookies.has('cs_admin')).toBe(false);
    });

    it('lets no more than the threshold of concurrent wrong passwords be checked', async () => {
      await env.plugin.createAdminUser('racer', ADMIN.password);
      const clients = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const client = env.client();
          const page = await client.get('/admin/login');
          return { client, token: /name="csrf_token" value="([^"]+)"/.exec(page.text)![1] };
        }),
      );
      const answers = await Promise.all(
        clients.map(({ client, token }) =>
          client.request('POST', '/admin/login', {
            form: { csrf_token: token, username: 'racer', password: 'wrong password here' },
          }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    });
  });
}
