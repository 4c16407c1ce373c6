// OpenID Connect sign-in against a real provider process: new and linked users, the
// flow's state, the provider's answers, JSON mode and moved paths.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { clock, PASSWORD, startAccountApp, type AccountEnv } from '../fixture';
import { PUBLIC, signIn, type Claims } from './sign-in-flow';
import { startProvider, type ProviderProcess } from './provider-process';

export function oauthSuite(harness: AdapterHarness, engine: Engine): void {
  describe(`account: OpenID Connect sign-in on ${harness.name} / ${engine}`, () => {
    let provider: ProviderProcess;
    let env: AccountEnv;
    const oidc = () => ({
      oidc: { issuer: provider.issuer, clientId: 'crudsmithtests', clientSecret: 'a client secret' },
    });
    beforeAll(async () => {
      provider = await startProvider();
      env = await startAccountApp(harness, engine, { oauthProviders: oidc(), redirectBaseUrl: PUBLIC });
    });
    afterAll(async () => {
      await env?.close();
      await provider?.stop();
    });
    beforeEach(() => {
      clock.skew = 0;
    });

    it('creates a user without a password for a new verified identity, signs it in, and lets it set a first password', async () => {
      const browser = env.client();
      const { start, done } = await signIn(browser, {
        sub: 'new-1',
        email: 'Nova@Example.com',
        email_verified: true,
        preferred_username: 'nova',
      });
      expect(start.status).toBe(307);
      const authorize = new URL(start.headers.get('location')!);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('state')).toEqual(expect.any(String));
      expect(authorize.searchParams.get('nonce')).toEqual(expect.any(String));
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${PUBLIC}/auth/oauth/oidc/callback`);
      expect(start.cookies.get('cs_oauth')).toMatch(/HttpOnly/i);
      expect(done.status).toBe(307);
      expect(done.headers.get('location')).toBe('/home');
      const me = await browser.get('/auth/me');
      expect(me).toMatchObject({ status: 200, body: { transport: 'session' } });
      const row = await env.db.knex('users').where('id', me.body.id).first();
      expect(row).toMatchObject({ username: 'nova', email: 'Nova@Example.com', hashed_password: null });
      expect(Boolean(row.is_verified)).toBe(true);
      // The first password needs a fresh sign-in: the provider's counts, for ten minutes.
      clock.skew = 601_000;
      expect((await browser.post('/auth/set-password', { new_password: 'first one of mine' })).status).toBe(403);
      clock.skew = 0;
      expect((await browser.post('/auth/set-password', { new_password: 'first one of mine' })).status).toBe(200);
      expect((await env.client().login('nova', 'first one of mine')).status).toBe(200);
    });

    it('links an identity to the verified account with the same address, and signs in to it again by its subject', async () => {
      const id = await env.user('lena', { verified: true });
      const first = env.client();
      expect(
        (await signIn(first, { sub: 'lena-sub', email: 'LENA@example.com', email_verified: true })).done.status,
      ).toBe(307);
      expect((await first.get('/auth/me')).body.id).toBe(id);
      const again = env.client();
      await signIn(again, { sub: 'lena-sub', email: 'lena.elsewhere@example.com', email_verified: false });
      expect((await again.get('/auth/me')).body.id).toBe(id);
      // The link took the account over: the password set before it no longer signs in.
      expect((await env.client().login('lena', PASSWORD)).status).toBe(401);
    });

    it("ends a pre-registered account's sessions, tokens and password when its address's owner links a provider identity", async () => {
      // The attacker registers the victim's address with a password of theirs and stays signed in every way.
      const attacker = env.client();
      expect(
        (
          await attacker.request('POST', '/auth/register', {
            json: { username: 'mallory', email: 'victor@example.com', password: 'the attacker knows this one' },
          })
        ).status,
      ).toBe(201);
      expect((await attacker.login('mallory', 'the attacker knows this one')).status).toBe(200);
      const tokens = await env
        .client()
        .request('POST', '/auth/token', { form: { username: 'mallory', password: 'the attacker knows this one' } });
      expect(tokens.status).toBe(200);
      // The victim clicks the verification mail, then signs in with the provider.
      await env.db.knex('users').where({ username: 'mallory' }).update({ is_verified: true });
      const victim = env.client();
      expect(
        (
          await signIn(victim, { sub: 'victor-sub', email: 'victor@example.com', email_verified: true })
        ).done.headers.get('location'),
      ).toBe('/home');
      const me = await victim.get('/auth/me');
      expect(me.status).toBe(200);
      // Nothing of the attacker's works any more.
      expect((await attacker.get('/auth/me')).status).toBe(401);
      expect((await env.client().get('/auth/me', { authorization: `Bearer ${tokens.body.access_token}` })).status).toBe(
        401,
      );
      expect(
        (await env.client().request('POST', '/auth/refresh', { json: { refresh_token: tokens.body.refresh_token } }))
          .status,
      ).toBe(401);
      expect((await env.client().login('mallory', 'the attacker knows this one')).status).toBe(401);
      expect((await env.client().login('victor@example.com', 'the attacker knows this one')).status).toBe(401);
      // The victim keeps their session and sets a password of their own.
      expect((await victim.post('/auth/set-password', { new_password: 'the victim chose this' })).status).toBe(200);
      expect((await env.client().login('victor@example.com', 'the victim chose this')).status).toBe(200);
    });

    it('links a provider address only to the same address up to ASCII case, never to its NFKC or Unicode-case fold', async () => {
      const plain = await env.user('wanda', { verified: true });
      const fullWidth = await signIn(env.client(), {
        sub: 'wanda-wide',
        email: '\uff57\uff41\uff4e\uff44\uff41@example.com',
        email_verified: true,
      });
      expect(fullWidth.done.headers.get('location')).toBe('/home?error=email_unsupported');
      await env.auth.createUser(
        { username: 'oeda', email: '\u00f6da@example.com', password: PASSWORD },
        { verified: true },
      );
      const upper = await signIn(env.client(), {
        sub: 'oeda-upper',
        email: '\u00d6DA@example.com',
        email_verified: true,
      });
      expect(upper.done.headers.get('location')).toBe('/home?error=email_unsupported');
      expect(
        await env.db.knex('account_identities').whereIn('subject', ['wanda-wide', 'oeda-upper']).select('id'),
      ).toEqual([]);
      // The plain address, in ASCII capitals, still links.
      const browser = env.client();
      expect(
        (
          await signIn(browser, { sub: 'wanda-sub', email: 'WANDA@example.com', email_verified: true })
        ).done.headers.get('location'),
      ).toBe('/home');
      expect((await browser.get('/auth/me')).body.id).toBe(plain);
    });

    it('ends on the provider_error redirect for claims it cannot store: NUL in the address, a subject past 255 characters', async () => {
      const cases = [
        { sub: 'nul-mail', email: 'nul\u0000@example.com', email_verified: true },
        { sub: 'x'.repeat(256), email: 'longsub@example.com', email_verified: true },
        { sub: 'nul\u0000sub', email: 'nulsub@example.com', email_verified: true },
      ];
      for (const claims of cases) {
        const browser = env.client();
        const { done } = await signIn(browser, claims);
        expect(done.status).toBe(307);
        expect(done.headers.get('location')).toBe('/home?error=provider_error');
        expect((await browser.get('/auth/me')).status).toBe(401);
      }
      // A name or preferred username with NUL is left out; the sign-in goes on.
      const browser = env.client();
      const { done } = await signIn(browser, {
        sub: 'nul-name',
        email: 'nulname@example.com',
        email_verified: true,
        name: 'Nu\u0000l',
        preferred_username: 'nu\u0000l',
      });
      expect(done.headers.get('location')).toBe('/home');
      expect((await browser.get('/auth/me')).status).toBe(200);
    });

    it('ends on a redirect with a short error code for what it cannot accept', async () => {
      await env.user('ursula');
      const cases: [Claims, string][] = [
        [{ sub: 'u-1', email: 'ursula@example.com', email_verified: true }, 'account_unverified'],
        [{ sub: 'u-2', email: 'fresh@example.com', email_verified: false }, 'email_unverified'],
        [{ sub: 'u-3' }, 'email_missing'],
        [{ sub: 'u-4', email: 'lena@example.com', email_verified: true }, 'identity_conflict'],
        [{ deny: true }, 'access_denied'],
      ];
      for (const [claims, code] of cases) {
        const browser = env.client();
        const { done } = await signIn(browser, claims);
        expect(done.status, code).toBe(307);
        expect(done.headers.get('location'), code).toBe(`/home?error=${code}`);
        expect((await browser.get('/auth/me')).status, code).toBe(401);
      }
      const deleted = await env.user('gone', { verified: true });
      await signIn(env.client(), { sub: 'gone-sub', email: 'gone@example.com', email_verified: true });
      await env.db.knex('users').where('id', deleted).update({ is_deleted: true });
      expect((await signIn(env.client(), { sub: 'gone-sub' })).done.headers.get('location')).toBe(
        '/home?error=account_deleted',
      );
    });

    it("refuses a forged, replayed or carried-over state, and another browser's callback", async () => {
      const browser = env.client();
      const { done, callback } = await signIn(browser, {
        sub: 'state-1',
        email: 'state1@example.com',
        email_verified: true,
      });
      expect(done.status).toBe(307);
      // Replayed: the flow is used up.
      const replay = await env.client().request('GET', callback, { redirect: 'manual' });
      expect(replay.headers.get('location')).toBe('/?error=invalid_state');
      // Another browser with the callback URL (login CSRF): no flow cookie, no sign-in.
      const victim = env.client();
      const start = await victim.request('GET', '/auth/oauth/oidc/authorize', { redirect: 'manual' });
      const attacker = env.client();
      const url = new URL(start.headers.get('location')!);
      url.searchParams.set(
        'login_hint',
        JSON.stringify({ sub: 'attacker', email: 'attacker@example.com', email_verified: true }),
      );
      const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
      const carried = await attacker.request('GET', `${back.pathname}${back.search}`, { redirect: 'manual' });
      expect(carried.headers.get('location')).toBe('/?error=invalid_state');
      expect((await attacker.get('/auth/me')).status).toBe(401);
      const forged = new URLSearchParams(back.search);
      forged.set('state', 'forged');
      expect(
        (await victim.request('GET', `${back.pathname}?${forged}`, { redirect: 'manual' })).headers.get('location'),
      ).toBe('/?error=invalid_state');
    });

    it('drops an unsafe redirect_to, and answers 400 for an unknown provider', async () => {
      const browser = env.client();
      const { done } = await signIn(
        browser,
        { sub: 'redir', email: 'redir@example.com', email_verified: true },
        '/auth/oauth/oidc/authorize?redirect_to=//evil.example/x',
      );
      expect(done.headers.get('location')).toBe('/');
      // Dot segments that normalise to `//host`: refused, on the failure path (which the attacker can force) too.
      for (const unsafe of [
        '/..//evil.example/x',
        '/.%2e//evil.example/x',
        '/x/../..//evil.example/x',
        '/%2e%2e//evil.example/x',
      ]) {
        const authorize = `/auth/oauth/oidc/authorize?redirect_to=${encodeURIComponent(unsafe)}`;
        const denied = await signIn(env.client(), { deny: true }, authorize);
        expect(denied.done.headers.get('location'), unsafe).toBe('/?error=access_denied');
        const ok = await signIn(
          env.client(),
          { sub: 'redir', email: 'redir@example.com', email_verified: true },
          authorize,
        );
        expect(ok.done.headers.get('location'), unsafe).toBe('/');
      }
      expect(
        (
          await signIn(env.client(), { deny: true }, '/auth/oauth/oidc/authorize?redirect_to=/after?x=1')
        ).done.headers.get('location'),
      ).toBe('/after?x=1&error=access_denied');
      expect((await env.client().request('GET', '/auth/oauth/nope/authorize', { redirect: 'manual' })).status).toBe(
        400,
      );
      expect(
        (await env.client().request('GET', '/auth/oauth/nope/callback?state=x&code=y', { redirect: 'manual' })).status,
      ).toBe(400);
    });

    it('bounds the sign-ins one address may start (429 past oauthRateLimit) and sweeps expired flows', async () => {
      const app = await startAccountApp(harness, engine, {
        oauthProviders: oidc(),
        redirectBaseUrl: PUBLIC,
        oauthRateLimit: { limit: 3, periodSeconds: 600 },
      });
      try {
        for (let i = 0; i < 3; i++)
          expect((await app.client().request('GET', '/auth/oauth/oidc/authorize', { redirect: 'manual' })).status).toBe(
            307,
          );
        const limited = await app.client().request('GET', '/auth/oauth/oidc/authorize', { redirect: 'manual' });
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number((await app.db.knex('account_oauth_flows').count({ n: '*' }).first())?.n)).toBe(3);
        // Past the window and the flows' ten minutes: a new start sweeps the expired ones.
        clock.skew = 601_000;
        expect((await app.client().request('GET', '/auth/oauth/oidc/authorize', { redirect: 'manual' })).status).toBe(
          307,
        );
        expect(Number((await app.db.knex('account_oauth_flows').count({ n: '*' }).first())?.n)).toBe(1);
      } finally {
        await app.close();
      }
    });

    it('answers JSON in JSON mode, on moved paths; a provider that cannot be reached is provider_error', async () => {
      const app = await startAccountApp(harness, engine, {
        oauthProviders: { ...oidc(), down: { issuer: 'http://127.0.0.1:9/', clientId: 'x', timeoutSeconds: 2 } },
        redirectBaseUrl: PUBLIC,
        oauthResponseMode: 'json',
        oauthPaths: { authorize: '/sso/:provider/start', callback: '/sso/:provider/done' },
      });
      try {
        const browser = app.client();
        const { start, done } = await signIn(
          browser,
          { sub: 'json-1', email: 'json1@example.com', email_verified: true },
          '/auth/sso/oidc/start?redirect_to=/dash',
        );
        expect(start).toMatchObject({
          status: 200,
          body: { authorization_url: expect.stringContaining(`${provider.issuer}/authorize?`) },
        });
        expect(done).toMatchObject({ status: 200, body: { csrf_token: expect.any(String), redirect_to: '/dash' } });
        expect((await browser.get('/auth/me')).status).toBe(200);
        const bad = await app.client().request('GET', '/auth/sso/oidc/done?state=forged&code=x');
        expect(bad).toMatchObject({ status: 400, body: { detail: 'invalid_state' } });
        expect(await app.client().request('GET', '/auth/sso/down/start')).toMatchObject({
          status: 400,
          body: { detail: 'provider_error' },
        });
        expect((await app.client().request('GET', '/auth/oauth/oidc/authorize')).status).toBe(404);
      } finally {
        await app.close();
      }
    });
  });
}
