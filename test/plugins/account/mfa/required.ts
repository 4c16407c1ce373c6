// Required two-factor (here: for superusers): enrollment at sign-in through a setup challenge.
import { describe, expect, it } from 'vitest';
import { PASSWORD, type AccountEnv } from '../fixture';
import { challengeFor, codeNow, nextStep, verify } from './helpers';

export function requiredTests(suite: { env: AccountEnv }): void {
  describe('required two-factor', () => {
    it('a required account that is not enrolled gets a setup challenge; /mfa/challenge gives its secret; /mfa/verify enrolls it', async () => {
      await suite.env.user('boss', { superuser: true });
      const c = suite.env.client();
      const res = await c.login('boss', PASSWORD);
      expect(res.body).toEqual({ mfa_required: true, challenge: expect.any(String), expires_in: 300, setup: true });
      expect(res.cookies.size).toBe(0);
      const details = await c.request('POST', '/auth/mfa/challenge', { json: { challenge: res.body.challenge } });
      expect(details.status).toBe(200);
      expect(details.body.setup.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(details.body.setup.otpauth_uri).toContain(details.body.setup.secret);
      expect(details.body.expires_in).toBeGreaterThan(0);

      const done = await verify(c, res.body.challenge, await codeNow(details.body.setup.secret));
      expect(done.status).toBe(200);
      expect(done.body.csrf_token).toEqual(expect.any(String));
      expect(done.body.recovery_codes).toHaveLength(10);
      expect((await c.get('/auth/mfa')).body).toEqual({ enabled: true, required: true, recovery_codes_remaining: 10 });

      // From now on an ordinary challenge, and two-factor cannot be turned off.
      nextStep();
      expect((await c.post('/auth/mfa/totp/disable', { code: await codeNow(details.body.setup.secret) })).status).toBe(
        403,
      );
      const next = await c.login('boss', PASSWORD);
      expect(next.body).not.toHaveProperty('setup');
      const secretAgain = await c.request('POST', '/auth/mfa/challenge', { json: { challenge: next.body.challenge } });
      expect(secretAgain.status).toBe(400);
      expect((await verify(c, next.body.challenge, done.body.recovery_codes[0])).status).toBe(200);
    });

    it('the bearer path enrolls the same way, answering tokens and recovery codes', async () => {
      await suite.env.user('bossbearer', { superuser: true });
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'bossbearer', 'token');
      const { body } = await c.request('POST', '/auth/mfa/challenge', { json: { challenge } });
      const done = await verify(c, challenge, await codeNow(body.setup.secret));
      expect(done.body).toMatchObject({ access_token: expect.any(String), recovery_codes: expect.any(Array) });
      expect(done.body.recovery_codes).toHaveLength(10);
    });

    it('/mfa/challenge: 400 for an unknown or used challenge, 422 without one', async () => {
      const c = suite.env.client();
      expect((await c.request('POST', '/auth/mfa/challenge', { json: { challenge: 'nope' } })).status).toBe(400);
      expect((await c.request('POST', '/auth/mfa/challenge', { json: {} })).status).toBe(422);
    });
  });
}
