// /login and /token stop at the challenge for an account with two-factor; /mfa/verify finishes them.
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD, type AccountEnv } from '../fixture';
import { challengeFor, codeNow, enrolledUser, nextStep, verify } from './helpers';

export function challengeTests(suite: { env: AccountEnv }): void {
  describe('signing in with two-factor', () => {
    it('/login answers the challenge object and sets no cookie; /mfa/verify answers the session', async () => {
      const { secret } = await enrolledUser(suite.env, 'twofa');
      const c = suite.env.client();
      const res = await c.login('twofa', PASSWORD);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['challenge', 'expires_in', 'mfa_required']);
      expect(res.body.expires_in).toBe(300);
      expect(res.cookies.size).toBe(0);
      expect((await c.get('/auth/me')).status).toBe(401);

      const done = await verify(c, res.body.challenge, await codeNow(secret));
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ csrf_token: expect.any(String) });
      expect(done.cookies.get('cs_session')).toMatch(/HttpOnly/i);
      expect(await c.get('/auth/me')).toMatchObject({ status: 200, body: { transport: 'session' } });
      expect((await c.post('/api/private')).status).toBe(200);
    });

    it('/token answers the challenge and no token; /mfa/verify answers the tokens with the scope asked', async () => {
      const { secret } = await enrolledUser(suite.env, 'twotok');
      const c = suite.env.client();
      const res = await c.request('POST', '/auth/token', {
        form: { username: 'twotok', password: PASSWORD, scope: 'items:read' },
      });
      expect(res.body).not.toHaveProperty('access_token');
      expect(res.body.mfa_required).toBe(true);
      const done = await verify(c, res.body.challenge, await codeNow(secret));
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'bearer',
      });
      const me = await suite.env.client().get('/auth/me', { authorization: `Bearer ${done.body.access_token}` });
      expect(me.body).toMatchObject({ transport: 'bearer', scopes: ['items:read'] });
    });

    it('a wrong code is 401 and the challenge lives on; a used, unknown or expired challenge is 400', async () => {
      const { secret } = await enrolledUser(suite.env, 'wrongcode');
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'wrongcode');
      const right = await codeNow(secret);
      expect(await verify(c, challenge, right === '111111' ? '222222' : '111111')).toMatchObject({
        status: 401,
        body: { detail: 'Invalid authentication code' },
      });
      expect((await verify(c, challenge, right)).status).toBe(200);
      nextStep();
      expect(await verify(c, challenge, await codeNow(secret))).toMatchObject({
        status: 400,
        body: { detail: 'Invalid or expired challenge' },
      });
      expect((await verify(c, 'no-such-challenge', await codeNow(secret))).status).toBe(400);
      expect((await verify(c, 'x'.repeat(100_000), await codeNow(secret))).status).toBe(400);
      expect((await c.request('POST', '/auth/mfa/verify', { json: { challenge } })).status).toBe(422);

      const late = await challengeFor(c, 'wrongcode');
      clock.skew += 301_000;
      expect((await verify(c, late, await codeNow(secret))).status).toBe(400);
    });

    it('a password change since the challenge began kills it (400)', async () => {
      const { client, secret } = await enrolledUser(suite.env, 'changedpw');
      const challenge = await challengeFor(suite.env.client(), 'changedpw');
      expect(
        (
          await client.post('/auth/change-password', {
            current_password: PASSWORD,
            new_password: 'a different passphrase',
          })
        ).status,
      ).toBe(200);
      expect((await verify(suite.env.client(), challenge, await codeNow(secret))).status).toBe(400);
    });

    it('a challenge dies after 5 wrong codes', async () => {
      const { secret } = await enrolledUser(suite.env, 'fivewrong');
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'fivewrong');
      const right = await codeNow(secret);
      const wrong = right === '999999' ? '999998' : '999999';
      for (let i = 0; i < 5; i++) expect((await verify(c, challenge, wrong)).status).toBe(401);
      expect((await verify(c, challenge, right)).status).toBe(400);
    });

    it('a code is accepted once per account: the same code on a second challenge is 401', async () => {
      const { secret } = await enrolledUser(suite.env, 'replay');
      const code = await codeNow(secret);
      expect((await verify(suite.env.client(), await challengeFor(suite.env.client(), 'replay'), code)).status).toBe(
        200,
      );
      expect((await verify(suite.env.client(), await challengeFor(suite.env.client(), 'replay'), code)).status).toBe(
        401,
      );
    });

    it('accepts the code of the step before or after (clock drift), not two steps away', async () => {
      const { secret } = await enrolledUser(suite.env, 'drift');
      nextStep();
      const c = suite.env.client();
      clock.skew -= 30_000;
      const previous = await codeNow(secret);
      clock.skew += 60_000;
      const next = await codeNow(secret);
      clock.skew += 30_000;
      const tooFar = await codeNow(secret);
      clock.skew -= 60_000;
      // In step order: each accepted step must be later than the last one used.
      expect((await verify(c, await challengeFor(c, 'drift'), previous)).status).toBe(200);
      expect((await verify(c, await challengeFor(c, 'drift'), next)).status).toBe(200);
      expect((await verify(c, await challengeFor(c, 'drift'), tooFar)).status).toBe(401);
    });

    it('of concurrent sign-ins with one code, exactly one wins', async () => {
      const { secret } = await enrolledUser(suite.env, 'racer');
      const challenges: string[] = [];
      for (let i = 0; i < 4; i++) challenges.push(await challengeFor(suite.env.client(), 'racer'));
      const code = await codeNow(secret);
      const results = await Promise.all(challenges.map((challenge) => verify(suite.env.client(), challenge, code)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
    });

    it('a recovery code signs in once, even when sent concurrently, and the count drops', async () => {
      const { client, recoveryCodes } = await enrolledUser(suite.env, 'recover');
      const challenges: string[] = [];
      for (let i = 0; i < 3; i++) challenges.push(await challengeFor(suite.env.client(), 'recover'));
      const results = await Promise.all(
        challenges.map((challenge) => verify(suite.env.client(), challenge, recoveryCodes[0])),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
      expect((await client.get('/auth/mfa')).body.recovery_codes_remaining).toBe(9);
      expect(
        (await verify(suite.env.client(), await challengeFor(suite.env.client(), 'recover'), recoveryCodes[1])).status,
      ).toBe(200);
      expect((await client.get('/auth/mfa')).body.recovery_codes_remaining).toBe(8);
    });

    it('concurrent wrong codes on one challenge cannot go past its 5 attempts', async () => {
      const { secret } = await enrolledUser(suite.env, 'flood');
      const challenge = await challengeFor(suite.env.client(), 'flood');
      const right = await codeNow(secret);
      const wrong = right === '123123' ? '321321' : '123123';
      const results = await Promise.all(Array.from({ length: 12 }, () => verify(suite.env.client(), challenge, wrong)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.every((s) => [400, 401, 429].includes(s))).toBe(true);
      expect((await verify(suite.env.client(), challenge, right)).status).toBe(400);
    });

    it("wrong codes lock the account's codes out for a while (429), across challenges", async () => {
      const { secret } = await enrolledUser(suite.env, 'codelock');
      const right = await codeNow(secret);
      const wrong = right === '555555' ? '555556' : '555555';
      for (let i = 0; i < 5; i++)
        expect(
          (await verify(suite.env.client(), await challengeFor(suite.env.client(), 'codelock'), wrong)).status,
        ).toBe(401);
      const locked = await verify(suite.env.client(), await challengeFor(suite.env.client(), 'codelock'), right);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      clock.skew += 31_000;
      expect(
        (await verify(suite.env.client(), await challengeFor(suite.env.client(), 'codelock'), await codeNow(secret)))
          .status,
      ).toBe(200);
    });

    it('/mfa/verify refuses a cross-site sign-in', async () => {
      const { secret } = await enrolledUser(suite.env, 'crosssite');
      const c = suite.env.client();
      const challenge = await challengeFor(c, 'crosssite');
      const res = await c.request('POST', '/auth/mfa/verify', {
        json: { challenge, code: await codeNow(secret) },
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(res.status).toBe(403);
    });
  });
}
