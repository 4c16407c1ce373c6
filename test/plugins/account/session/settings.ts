// The session transport under other settings: secure cookies (`__Host-` names, Secure),
// CSRF off, a refresh cookie beside the session, a small cap per user, short timeouts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { clock, PASSWORD, startAccountApp, type AccountEnv } from '../fixture';

export function sessionSettingsSuite(harness: AdapterHarness, engine: Engine): void {
  describe(`account: session settings on ${harness.name} / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      env = await startAccountApp(harness, engine, {
        secureCookies: true,
        session: {
          managementRoutes: true,
          csrf: false,
          idleTimeoutSeconds: 600,
          absoluteTimeoutSeconds: 3600,
          maxSessionsPerUser: 2,
        },
        bearer: { refresh: 'cookie' },
      });
      for (const name of ['sam', 'tess', 'uma', 'vic']) await env.user(name);
    });
    afterAll(async () => env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    it('marks every cookie Secure, with __Host- names, SameSite=Lax, Path=/ and no Domain', async () => {
      const c = env.client();
      const login = await c.login('sam', PASSWORD);
      expect(login.status).toBe(200);
      const token = await c.request('POST', '/auth/token', { form: { username: 'sam', password: PASSWORD } });
      const cookies = { ...Object.fromEntries(login.cookies), ...Object.fromEntries(token.cookies) };
      expect(Object.keys(cookies).sort()).toEqual(['__Host-cs_csrf', '__Host-cs_refresh', '__Host-cs_session']);
      for (const [name, line] of Object.entries(cookies)) {
        expect(line, name).toMatch(/;\s*Secure/i);
        expect(line, name).toMatch(/SameSite=Lax/i);
        expect(line, name).toMatch(/Path=\/(;|$)/);
        expect(line, name).not.toMatch(/Domain=/i);
        expect(/HttpOnly/i.test(line), name).toBe(name !== '__Host-cs_csrf');
      }
      expect((await c.get('/auth/me')).body).toMatchObject({ transport: 'session' });
    });

    it('with CSRF off, unsafe session requests need no header, and /csrf/refresh is 400', async () => {
      const c = env.client();
      await c.login('sam', PASSWORD);
      expect((await c.request('POST', '/api/private')).status).toBe(200);
      const res = await c.request('POST', '/auth/csrf/refresh');
      expect(res).toMatchObject({ status: 400, body: { detail: 'CSRF protection is disabled' } });
    });

    it('/logout also revokes the refresh cookie family and clears every cookie', async () => {
      const c = env.client();
      await c.login('tess', PASSWORD);
      await c.request('POST', '/auth/token', { form: { username: 'tess', password: PASSWORD } });
      const refresh = c.jar.get('__Host-cs_refresh')!;
      const out = await c.request('POST', '/auth/logout');
      expect(out.status).toBe(200);
      for (const name of ['__Host-cs_session', '__Host-cs_csrf', '__Host-cs_refresh'])
        expect(out.cookies.get(name), name).toMatch(/Max-Age=0/i);
      const replay = env.client();
      replay.jar.set('__Host-cs_refresh', refresh);
      expect((await replay.request('POST', '/auth/refresh')).status).toBe(401);
    });

    it('caps the sessions of a user, evicting the least recently used', async () => {
      const [a, b, c] = [env.client(), env.client(), env.client()];
      await a.login('uma', PASSWORD);
      await b.login('uma', PASSWORD);
      clock.skew = 120_000; // past the touch interval: this use of a is recorded
      expect((await a.get('/auth/me')).status).toBe(200);
      await c.login('uma', PASSWORD);
      expect((await b.get('/auth/me')).status).toBe(401);
      expect((await a.get('/auth/me')).status).toBe(200);
      expect((await c.get('/auth/me')).status).toBe(200);
    });

    it('ends a session unused for the idle timeout, and any session at the absolute timeout', async () => {
      const idle = env.client();
      await idle.login('vic', PASSWORD);
      clock.skew = 601_000;
      expect((await idle.get('/auth/me')).status).toBe(401);

      clock.skew = 0;
      const busy = env.client();
      await busy.login('vic', PASSWORD);
      for (let seconds = 500; seconds < 3600; seconds += 500) {
        clock.skew = seconds * 1000;
        expect((await busy.get('/auth/me')).status, `after ${seconds} s`).toBe(200);
      }
      clock.skew = 3601_000;
      expect((await busy.get('/auth/me')).status).toBe(401);
    });
  });
}
