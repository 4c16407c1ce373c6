// Sign-in: cookies and their flags, uniform 401, login CSRF, fixation.
import { describe, expect, it } from 'vitest';
import { PASSWORD, type AccountEnv } from '../fixture';

/** Registers these tests against the suite's app (started by `sessionSuite`). */
export function loginTests(suite: { env: AccountEnv }): void {
  describe('POST /login', () => {
    it('sets an HttpOnly session cookie and a readable CSRF cookie, answering csrf_token', async () => {
      await suite.env.user('alice');
      const c = suite.env.client();
      const res = await c.login('alice', PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ csrf_token: expect.any(String) });
      const session = res.cookies.get('cs_session')!;
      const csrf = res.cookies.get('cs_csrf')!;
      expect(session).toMatch(/HttpOnly/i);
      expect(session).toMatch(/SameSite=Lax/i);
      expect(session).toMatch(/Path=\//);
      expect(session).not.toMatch(/Domain=/i);
      expect(session).not.toMatch(/Secure/i);
      expect(csrf).not.toMatch(/HttpOnly/i);
      expect(csrf).toMatch(/SameSite=Lax/i);
      expect(c.jar.get('cs_csrf')).toBe(res.body.csrf_token);
      expect(c.jar.get('cs_session')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('signs in by e-mail and without regard to case', async () => {
      expect((await suite.env.client().login('alice@example.com', PASSWORD)).status).toBe(200);
      expect((await suite.env.client().login('ALICE', PASSWORD)).status).toBe(200);
      expect((await suite.env.client().login('Alice@EXAMPLE.com', PASSWORD)).status).toBe(200);
    });

    it('answers one uniform 401 for a wrong password, an unknown user and a deleted user', async () => {
      const deleted = await suite.env.user('gone');
      await suite.env.db.knex('users').where('id', deleted).update({ is_deleted: true });
      const answers = await Promise.all([
        suite.env.client().login('alice', 'wrong password here'),
        suite.env.client().login('nobody-at-all', 'wrong password here'),
        suite.env.client().login('gone', PASSWORD),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: 'Incorrect username or password' });
        expect(res.cookies.size).toBe(0);
      }
    });

    it('answers the uniform 401 to an oversized password at /login and /token, never a 500', async () => {
      const huge = 'x'.repeat(200_000);
      for (const path of ['/auth/login', '/auth/token']) {
        const res = await suite.env.client().request('POST', path, { form: { username: 'alice', password: huge } });
        expect(res, path).toMatchObject({ status: 401, body: { detail: 'Incorrect username or password' } });
      }
      const c = suite.env.client();
      await c.login('alice', PASSWORD);
      expect(
        (await c.post('/auth/change-password', { current_password: huge, new_password: 'a fresh new secret' })).status,
      ).toBe(401);
      expect((await c.post('/auth/change-password', { current_password: PASSWORD, new_password: huge })).status).toBe(
        422,
      );
    });

    it('answers 422 without the form fields', async () => {
      expect((await suite.env.client().request('POST', '/auth/login', { form: { username: 'alice' } })).status).toBe(
        422,
      );
    });

    it('refuses a cross-site sign-in (login CSRF)', async () => {
      const res = await suite.env.client().request('POST', '/auth/login', {
        form: { username: 'alice', password: PASSWORD },
        headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      });
      expect(res.status).toBe(403);
    });

    it('issues a new session id at every sign-in, and never adopts a planted one (fixation)', async () => {
      const attacker = suite.env.client();
      await suite.env.user('mallory');
      await attacker.login('mallory', PASSWORD);
      const planted = attacker.jar.get('cs_session')!;

      const victim = suite.env.client();
      victim.jar.set('cs_session', planted);
      await victim.login('alice', PASSWORD);
      const own = victim.jar.get('cs_session');
      expect(own).not.toBe(planted);
      // The planted id is dead; it never became Alice's.
      expect((await attacker.get('/auth/me')).status).toBe(401);

      const forged = suite.env.client();
      forged.jar.set('cs_session', 'A'.repeat(43));
      await forged.login('alice', PASSWORD);
      expect(forged.jar.get('cs_session')).not.toBe('A'.repeat(43));
      await victim.login('alice', PASSWORD);
      expect(victim.jar.get('cs_session')).not.toBe(own);
    });
  });
}
