// What the two-factor tests share: codes from the test clock, enrollment through the
// routes, and sign-ins that stop at the challenge.
import { expect } from 'vitest';
import { totpCode } from '../../../../plugins/account/src/mfa/totp';
import { clock, PASSWORD, type AccountEnv, type Client } from '../fixture';

/** The authenticator's code now (by the test clock, as the server sees it). */
export function codeNow(secret: string): Promise<string> {
  return totpCode(secret, Math.floor(clock.now() / 1000));
}

/**
 * Moves the clock to the start of the next 30-second step, so the authenticator shows a
 * new code and no step boundary passes in the next seconds of the test.
 */
export function nextStep(): void {
  clock.skew += 30_000 - (clock.now() % 30_000);
}

/** Creates a user, signs a browser in, and enrolls an authenticator through the routes. */
export async function enrolledUser(
  env: AccountEnv,
  username: string,
): Promise<{ client: Client; secret: string; recoveryCodes: string[] }> {
  await env.user(username);
  const client = env.client();
  expect((await client.login(username, PASSWORD)).status).toBe(200);
  const setup = await client.post('/auth/mfa/totp/setup', { password: PASSWORD });
  expect(setup.status).toBe(200);
  const confirm = await client.post('/auth/mfa/totp/confirm', { code: await codeNow(setup.body.secret) });
  expect(confirm.status).toBe(200);
  nextStep();
  return { client, secret: setup.body.secret, recoveryCodes: confirm.body.recovery_codes };
}

/** Signs in with the password and expects the challenge object: answers its token. */
export async function challengeFor(
  client: Client,
  username: string,
  transport: 'login' | 'token' = 'login',
): Promise<string> {
  const res = await client.request('POST', `/auth/${transport}`, { form: { username, password: PASSWORD } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ mfa_required: true, challenge: expect.any(String), expires_in: expect.any(Number) });
  return res.body.challenge;
}

/** POST /mfa/verify. */
export function verify(client: Client, challenge: string, code: string) {
  return client.request('POST', '/auth/mfa/verify', { json: { challenge, code } });
}
