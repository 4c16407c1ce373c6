// Login CSRF on cookie sign-in: a page of another site must not sign the browser into
// the attacker's account. Sec-Fetch-Site decides when the browser sends it; without it,
// Origin, and Referer when there is no Origin. Before, a cross-site Origin without
// Sec-Fetch-Site still got a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../adapters/conformance';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';

const TRUSTED = 'https://partner.example';

function loginCsrfSuite(harness: AdapterHarness): void {
  describe(`account: login CSRF on ${harness.name}`, () => {
    let env: AccountEnv;
    let tokenCookieEnv: AccountEnv;
    let own: string;
    beforeAll(async () => {
      env = await startAccountApp(harness, 'sqlite', { trustedOrigins: [TRUSTED] });
      tokenCookieEnv = await startAccountApp(harness, 'sqlite', { session: false, bearer: { refresh: 'cookie' } });
      await env.user('csrfvictim');
      await tokenCookieEnv.user('csrfvictim');
      own = new URL(env.server.url).origin;
    });
    afterAll(async () => {
      await env?.close();
      await tokenCookieEnv?.close();
    });

    const login = (headers: Record<string, string>, target = env, path = '/auth/login') =>
      target.client().request('POST', path, { form: { username: 'csrfvictim', password: PASSWORD }, headers });

    it.each([
      ['a cross-site Origin without Sec-Fetch-Site', { origin: 'https://evil.example' }],
      ['an opaque Origin (null)', { origin: 'null' }],
      ['an unreadable Origin', { origin: 'not a url' }],
      ['its own host on another port', { origin: 'http://127.0.0.1:1' }],
      ['a cross-site Referer and no Origin', { referer: 'https://evil.example/page?x=1' }],
      ['an unreadable Referer and no Origin', { referer: '::::' }],
      [
        'Sec-Fetch-Site cross-site, whatever Origin claims',
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      ],
    ])('refuses %s (403, no cookie)', async (_name, headers) => {
      const res = await login(headers);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Cross-site sign-in refused' });
      expect(res.cookies.size).toBe(0);
    });

    it('signs in from its own origin, by Origin or by Referer', async () => {
      expect((await login({ origin: own })).status).toBe(200);
      expect((await login({ referer: `${own}/sign-in` })).status).toBe(200);
      expect((await login({ 'sec-fetch-site': 'same-origin', origin: own })).status).toBe(200);
    });

    it('signs in from a trusted origin, with or without Sec-Fetch-Site', async () => {
      expect((await login({ origin: TRUSTED })).status).toBe(200);
      expect((await login({ origin: `${TRUSTED}/` })).status).toBe(403); // an Origin is never a path
      expect((await login({ 'sec-fetch-site': 'cross-site', origin: TRUSTED })).status).toBe(200);
      expect((await login({ referer: `${TRUSTED}/welcome` })).status).toBe(200);
    });

    it('signs in a caller that sends none of the three (no browser page)', async () => {
      expect((await login({})).status).toBe(200);
    });

    it('applies to /token when it sets the refresh cookie', async () => {
      const refused = await login({ origin: 'https://evil.example' }, tokenCookieEnv, '/auth/token');
      expect(refused.status).toBe(403);
      expect(refused.cookies.size).toBe(0);
      expect(
        (await login({ origin: new URL(tokenCookieEnv.server.url).origin }, tokenCookieEnv, '/auth/token')).status,
      ).toBe(200);
      // In refresh mode body, /token sets no cookie: a cross-site page cannot read its answer, so no check.
      expect((await login({ origin: 'https://evil.example' }, env, '/auth/token')).status).toBe(200);
    });
  });
}

loginCsrfSuite(koaHarness);
loginCsrfSuite(expressHarness);
loginCsrfSuite(fastifyHarness);
