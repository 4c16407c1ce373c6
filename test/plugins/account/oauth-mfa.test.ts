// Two-factor on the OpenID Connect path: a callback for an account with two-factor (or
// one that must enroll) starts no session; its challenge travels in the fragment of
// redirect_to (or in the JSON answer) and /mfa/verify finishes the sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { startAccountApp, type AccountEnv } from './fixture';
import { codeNow, enrolledUser, verify } from './mfa/helpers';
import { PUBLIC, signIn } from './oauth/sign-in-flow';
import { startProvider, type ProviderProcess } from './oauth/provider-process';

describe('account: two-factor on the OpenID Connect sign-in (koa / sqlite)', () => {
  let provider: ProviderProcess;
  let env: AccountEnv;
  let jsonEnv: AccountEnv;
  beforeAll(async () => {
    provider = await startProvider();
    const options = {
      oauthProviders: {
        oidc: { issuer: provider.issuer, clientId: 'crudsmithtests', clientSecret: 'a client secret' },
      },
      redirectBaseUrl: PUBLIC,
      mfa: { required: (user: Record<string, unknown>) => Boolean(user.is_superuser) },
    };
    env = await startAccountApp(koaHarness, 'sqlite', options);
    jsonEnv = await startAccountApp(koaHarness, 'sqlite', { ...options, oauthResponseMode: 'json' });
  });
  afterAll(async () => {
    await env?.close();
    await jsonEnv?.close();
    await provider?.stop();
  });

  it('redirects with the challenge in the fragment and no session; /mfa/verify signs in and echoes redirect_to', async () => {
    const { secret } = await enrolledUser(env, 'mira');
    await env.db.knex('users').where({ username: 'mira' }).update({ is_verified: true });
    const browser = env.client();
    const { done } = await signIn(browser, { sub: 'mira-sub', email: 'mira@example.com', email_verified: true });
    expect(done.status).toBe(307);
    expect(done.cookies.has('cs_session')).toBe(false);
    const location = new URL(done.headers.get('location')!, PUBLIC);
    expect(location.pathname).toBe('/home');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('expires_in')).toBe('300');
    expect((await browser.get('/auth/me')).status).toBe(401);

    const finished = await verify(browser, fragment.get('mfa_challenge')!, await codeNow(secret));
    expect(finished.status).toBe(200);
    expect(finished.body).toEqual({ csrf_token: expect.any(String), redirect_to: '/home' });
    expect(await browser.get('/auth/me')).toMatchObject({ status: 200, body: { transport: 'session' } });
  });

  it('a superuser who must enroll gets a setup challenge through the provider too', async () => {
    await env.user('olga', { superuser: true, verified: true });
    const browser = env.client();
    const { done } = await signIn(browser, { sub: 'olga-sub', email: 'olga@example.com', email_verified: true });
    const fragment = new URLSearchParams(new URL(done.headers.get('location')!, PUBLIC).hash.slice(1));
    expect(fragment.get('setup')).toBe('1');
    const details = await browser.request('POST', '/auth/mfa/challenge', {
      json: { challenge: fragment.get('mfa_challenge') },
    });
    const finished = await verify(browser, fragment.get('mfa_challenge')!, await codeNow(details.body.setup.secret));
    expect(finished.body.recovery_codes).toHaveLength(10);
    expect((await browser.get('/auth/mfa')).body).toMatchObject({ enabled: true, required: true });
  });

  it('in JSON mode answers the challenge object, and an account without two-factor the session as before', async () => {
    const { secret } = await enrolledUser(jsonEnv, 'jules');
    await jsonEnv.db.knex('users').where({ username: 'jules' }).update({ is_verified: true });
    const browser = jsonEnv.client();
    const { done } = await signIn(browser, { sub: 'jules-sub', email: 'jules@example.com', email_verified: true });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ mfa_required: true, challenge: expect.any(String), expires_in: 300 });
    expect(done.cookies.has('cs_session')).toBe(false);
    expect((await verify(browser, done.body.challenge, await codeNow(secret))).body).toEqual({
      csrf_token: expect.any(String),
      redirect_to: '/home',
    });

    const plain = jsonEnv.client();
    const signedIn = await signIn(plain, { sub: 'plain-sub', email: 'plain@example.com', email_verified: true });
    expect(signedIn.done.body).toEqual({ csrf_token: expect.any(String), redirect_to: '/home' });
  });
});
