// A browser signing in through the mock provider, redirects followed by hand.
import { expect } from 'vitest';
import type { Answer, Client } from '../fixture';

/** Where the tests say the app is published: the provider sends browsers back here, the test maps it to the server. */
export const PUBLIC = 'http://app.test';

export type Claims = {
  sub?: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  deny?: boolean;
};

/** A browser signing in through the provider: authorize, the provider (with the identity as login_hint), the callback. */
export async function signIn(
  browser: Client,
  claims: Claims,
  authorize = '/auth/oauth/oidc/authorize?redirect_to=/home',
): Promise<{ start: Answer; done: Answer; callback: string }> {
  const start = await browser.request('GET', authorize, { redirect: 'manual' });
  const providerUrl = new URL(start.headers.get('location') ?? start.body?.authorization_url);
  providerUrl.searchParams.set('login_hint', JSON.stringify(claims));
  const provider = await fetch(providerUrl, { redirect: 'manual' });
  expect(provider.status).toBe(302);
  const back = new URL(provider.headers.get('location')!);
  expect(back.origin).toBe(PUBLIC);
  const callback = `${back.pathname}${back.search}`;
  const done = await browser.request('GET', callback, { redirect: 'manual' });
  return { start, done, callback };
}
