// Password changes, sudo and the sign-in lockout.
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD, type AccountEnv } from '../fixture';

/** Registers these tests against the suite's app (started by `sessionSuite`). */
export function passwordTests(suite: { env: AccountEnv }): void {
  describe('POST /change-password and /set-password', () => {
    it('answers 401 for a wrong current password, 422 for a weak new one, 422 for missing fields', async () => {
      await suite.env.user('changer');
      const c = suite.env.client();
      await c.login('changer', PASSWORD);
      expect(
        (
          await c.post('/auth/change-password', {
            current_password: 'not it at all',
            new_password: 'a fresh new secret',
          })
        ).status,
      ).toBe(401);
      expect(
        (await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'password1' })).status,
      ).toBe(422);
      expect((await c.post('/auth/change-password', { new_password: 'a fresh new secret' })).status).toBe(422);
    });

    it('changes it: other sessions and every bearer token die, this session stays', async () => {
      await suite.env.user('mover');
      const here = suite.env.client();
      const there = suite.env.client();
      await here.login('mover', PASSWORD);
      await there.login('mover', PASSWORD);
      const token = (
        await suite.env.client().request('POST', '/auth/token', { form: { username: 'mover', password: PASSWORD } })
      ).body;
      const bearer = { authorization: `Bearer ${token.access_token}` };
      expect((await suite.env.client().get('/auth/me', bearer)).status).toBe(200);

      const res = await here.post('/auth/change-password', {
        current_password: PASSWORD,
        new_password: 'a fresh new secret',
      });
      expect(res).toMatchObject({ status: 200, body: { message: 'Password changed' } });
      expect((await here.get('/auth/me')).status).toBe(200);
      expect((await there.get('/auth/me')).status).toBe(401);
      expect((await suite.env.client().get('/auth/me', bearer)).status).toBe(401);
      expect(
        (await suite.env.client().request('POST', '/auth/refresh', { json: { refresh_token: token.refresh_token } }))
          .status,
      ).toBe(401);
      expect((await suite.env.client().login('mover', PASSWORD)).status).toBe(401);
      expect((await suite.env.client().login('mover', 'a fresh new secret')).status).toBe(200);
    });

    it('set-password: 400 when a password exists, 200 for an account without, 403 when the sign-in is stale', async () => {
      const id = await suite.env.user('oauthish');
      const c = suite.env.client();
      await c.login('oauthish', PASSWORD);
      expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(400);
      expect((await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'x' })).status).toBe(
        422,
      );
      await suite.env.db.knex('users').where('id', id).update({ hashed_password: null });
      expect(
        (await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'my very first one' }))
          .status,
      ).toBe(400);
      expect((await c.post('/auth/set-password', { new_password: 'password1' })).status).toBe(422);
      clock.skew = 601_000;
      // Still signed in (idle timeout is longer), but not freshly.
      expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(403);
      clock.skew = 0;
      expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(200);
      expect((await suite.env.client().login('oauthish', 'my very first one')).status).toBe(200);
    });
  });

  describe('sudo', () => {
    it('gates a route until the password is confirmed', async () => {
      const c = suite.env.client();
      await c.login('alice', PASSWORD);
      expect((await c.post('/api/sensitive')).status).toBe(403);
      expect((await c.post('/api/sudo', { password: 'wrong password' })).status).toBe(401);
      expect((await c.post('/api/sudo', { password: PASSWORD })).status).toBe(200);
      expect((await c.post('/api/sensitive')).status).toBe(200);
      clock.skew = 301_000;
      expect((await c.post('/api/sensitive')).status).toBe(403);
    });
  });

  describe('lockout', () => {
    it('locks an account after repeated failures, whatever the case or identifier used (429 + Retry-After)', async () => {
      await suite.env.user('locked');
      const tries = ['locked', 'LOCKED', 'Locked', 'locked@example.com', 'LOCKED@EXAMPLE.COM'];
      for (const name of tries) expect((await suite.env.client().login(name, 'bad password attempt')).status).toBe(401);
      const res = await suite.env.client().login('LoCkEd', PASSWORD);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(30);
      // Shared with /token.
      const token = await suite.env
        .client()
        .request('POST', '/auth/token', { form: { username: 'locked@example.com', password: PASSWORD } });
      expect(token.status).toBe(429);
      // Lifts once the lock expires; the next failure locks twice as long.
      clock.skew = 31_000;
      expect((await suite.env.client().login('locked', 'bad password attempt')).status).toBe(401);
      const longer = await suite.env.client().login('locked', PASSWORD);
      expect(longer.status).toBe(429);
      expect(Number(longer.headers.get('retry-after'))).toBeGreaterThan(30);
      clock.skew = 31_000 + 61_000;
      expect((await suite.env.client().login('locked', PASSWORD)).status).toBe(200);
    });

    it('locks unknown names the same way, so a lock reveals nothing', async () => {
      for (let i = 0; i < 5; i++)
        expect((await suite.env.client().login('NoSuchUser', 'bad password attempt')).status).toBe(401);
      expect((await suite.env.client().login('nosuchuser', 'bad password attempt')).status).toBe(429);
    });
  });
}
