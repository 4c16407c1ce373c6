// The example's OpenID Connect provider `oidc`, on when OAUTH_OIDC_ISSUER, _CLIENT_ID and
// _CLIENT_SECRET are set, against a real provider process; the callback on PUBLIC_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../examples/app/src/config';
import { readMailSettings } from '../../examples/app/src/mail';
import { startProvider, type ProviderProcess } from '../plugins/account/oauth/provider-process';
import { PUBLIC, signIn } from '../plugins/account/oauth/sign-in-flow';
import { ADAPTER_ENGINES, startExample, type ExampleServer } from './example-server';

describe('example OIDC settings', () => {
  it('turn the provider on only with all three set', () => {
    expect(
      readSettings({ OAUTH_OIDC_ISSUER: 'https://id.example.com', OAUTH_OIDC_CLIENT_ID: 'app' }).oidc,
    ).toBeUndefined();
    expect(
      readSettings({
        OAUTH_OIDC_ISSUER: 'https://id.example.com',
        OAUTH_OIDC_CLIENT_ID: 'app',
        OAUTH_OIDC_CLIENT_SECRET: 's',
      }).oidc,
    ).toEqual({ issuer: 'https://id.example.com', clientId: 'app', clientSecret: 's' });
  });
});

describe.each(ADAPTER_ENGINES)('example app OpenID Connect sign-in on %s with %s', (adapter, engine) => {
  let provider: ProviderProcess;
  let ex: ExampleServer;
  beforeAll(async () => {
    provider = await startProvider();
    const mail = readMailSettings({ PUBLIC_URL: PUBLIC }, { host: '127.0.0.1', port: 8000, dataDir: 'data' });
    ex = await startExample(engine, {
      adapter,
      build: { mail, oidc: { issuer: provider.issuer, clientId: 'example', clientSecret: 'example secret' } },
    });
  });
  afterAll(async () => {
    await ex?.close();
    await provider?.stop();
  });

  it('creates a verified user at the first sign-in and signs it in with a session the API takes', async () => {
    const browser = ex.client();
    const { done } = await signIn(browser, {
      sub: 'ex-1',
      email: 'olga@example.com',
      email_verified: true,
      preferred_username: 'olga',
      name: 'Olga',
    });
    expect(done.status).toBe(307);
    expect(done.headers.get('location')).toBe('/home');
    const me = await browser.get('/auth/me');
    expect(me.status).toBe(200);
    const user = await ex.client().get(`/api/v2/users/${me.body.id}`);
    expect(user.body).toMatchObject({ username: 'olga', email: 'olga@example.com', is_verified: true });
    expect(
      (await signIn(ex.client(), { sub: 'ex-2', email: 'nobody@example.com', email_verified: false })).done.headers.get(
        'location',
      ),
    ).toBe('/home?error=email_unverified');
  });
});
