// requireFreshSignIn() and sudo with a second factor.
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD, type AccountEnv } from '../fixture';
import { challengeFor, codeNow, enrolledUser, nextStep, verify } from './helpers';

export function sudoTests(suite: { env: AccountEnv }): void {
  describe('fresh sign-in and sudo', () => {
    it('requireFreshSignIn() lets a recent sign-in through and answers 403 past freshSignInSeconds', async () => {
      await suite.env.user('freshy');
      const c = suite.env.client();
      await c.login('freshy', PASSWORD);
      expect((await c.post('/api/fresh')).status).toBe(200);
      clock.skew = 601_000;
      expect(await c.post('/api/fresh')).toMatchObject({
        status: 403,
        body: { detail: 'Sign in again first: this needs a recent sign-in' },
      });
      expect((await suite.env.client().post('/api/fresh')).status).toBe(401);
    });

    it('a sign-in finished at /mfa/verify is fresh from then on', async () => {
      const { secret } = await enrolledUser(suite.env, 'freshmfa');
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'freshmfa');
      clock.skew += 200_000;
      nextStep();
      expect((await verify(c, challenge, await codeNow(secret))).status).toBe(200);
      clock.skew += 500_000;
      expect((await c.post('/api/fresh')).status).toBe(200);
    });

    it('sudo takes a code when two-factor is on: 401 wrong, 200 right, and a used code fails', async () => {
      const { client, secret, recoveryCodes } = await enrolledUser(suite.env, 'sudoer');
      expect((await client.post('/api/sensitive')).status).toBe(403);
      expect((await client.post('/api/sudo', { code: 'zzzz-zzzz-zzzz' })).status).toBe(401);
      const code = await codeNow(secret);
      expect((await client.post('/api/sudo', { code })).status).toBe(200);
      expect((await client.post('/api/sensitive')).status).toBe(200);
      expect((await client.post('/api/sudo', { code })).status).toBe(401);
      expect((await client.post('/api/sudo', { code: recoveryCodes[9] })).status).toBe(200);
      // The password still works too.
      expect((await client.post('/api/sudo', { password: PASSWORD })).status).toBe(200);
      clock.skew += 301_000;
      expect((await client.post('/api/sensitive')).status).toBe(403);
    });

    it('sudo attempts are limited: wrong codes lock out (429)', async () => {
      const { client, secret } = await enrolledUser(suite.env, 'sudolock');
      const right = await codeNow(secret);
      const wrong = right === '424242' ? '242424' : '424242';
      for (let i = 0; i < 5; i++) expect((await client.post('/api/sudo', { code: wrong })).status).toBe(401);
      expect((await client.post('/api/sudo', { code: right })).status).toBe(429);
    });

    it('sudo for a bearer caller with a code answers a token that carries it', async () => {
      const { secret } = await enrolledUser(suite.env, 'sudobearer');
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'sudobearer', 'token');
      const { body } = await verify(c, challenge, await codeNow(secret));
      nextStep();
      const auth = { authorization: `Bearer ${body.access_token}` };
      const grant = await c.request('POST', '/api/sudo', { json: { code: await codeNow(secret) }, headers: auth });
      expect(grant.status).toBe(200);
      expect(
        (await c.request('POST', '/api/sensitive', { headers: { authorization: `Bearer ${grant.body.access_token}` } }))
          .status,
      ).toBe(200);
    });
  });
}
