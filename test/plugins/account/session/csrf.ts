// CSRF on session requests, /me and the currentUser/principal dependencies.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, PASSWORD, type AccountEnv } from '../fixture';

/** Registers these tests against the suite's app (started by `sessionSuite`). */
export function csrfAndMeTests(suite: { env: AccountEnv }): void {
  describe('CSRF on session requests', () => {
    let c: Client;
    beforeAll(async () => {
      c = suite.env.client();
      await c.login('alice', PASSWORD);
    });

    it('lets safe verbs through without the header', async () => {
      expect((await c.get('/api/private')).status).toBe(200);
    });

    it('answers 403 to an unsafe verb without the header, or with a wrong one', async () => {
      expect((await c.request('POST', '/api/private')).status).toBe(403);
      expect((await c.request('POST', '/api/private', { headers: { 'x-csrf-token': 'wrong' } })).status).toBe(403);
      // The cookie's value is not enough on its own: only the header counts, and it must match the session's token.
      const other = suite.env.client();
      await other.login('alice', PASSWORD);
      expect(
        (await c.request('POST', '/api/private', { headers: { 'x-csrf-token': other.jar.get('cs_csrf')! } })).status,
      ).toBe(403);
      expect((await c.post('/api/private')).status).toBe(200);
    });

    it('refuses a cross-site form post to a session route', async () => {
      const before = (await suite.env.db.knex('users').where('username', 'alice').first()).hashed_password;
      const res = await c.request('POST', '/auth/change-password', {
        form: { current_password: PASSWORD, new_password: 'attacker chosen password' },
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(res.status).toBe(403);
      expect((await suite.env.db.knex('users').where('username', 'alice').first()).hashed_password).toBe(before);
      expect((await c.request('POST', '/auth/logout')).status).toBe(403);
      expect((await c.get('/auth/me')).status).toBe(200);
    });

    it('counts a forged unsafe request as anonymous for the principal', async () => {
      expect((await c.request('POST', '/api/principal')).body).toBeNull();
      expect((await c.post('/api/principal')).body).toMatchObject({
        isSuperuser: false,
        transport: 'session',
        tierId: null,
      });
    });
  });

  describe('GET /me and the dependencies', () => {
    it('answers id, scopes and transport; 401 when anonymous', async () => {
      const c = suite.env.client();
      expect((await c.get('/auth/me')).status).toBe(401);
      await c.login('alice', PASSWORD);
      const id = (await suite.env.db.knex('users').where('username', 'alice').first()).id;
      expect((await c.get('/auth/me')).body).toEqual({ id, scopes: ['items:read'], transport: 'session' });
    });

    it('never hands out the password hash', async () => {
      const c = suite.env.client();
      await c.login('alice', PASSWORD);
      const me = await c.get('/api/whoami');
      expect(me.body.username).toBe('alice');
      expect(me.body).not.toHaveProperty('hashed_password');
    });

    it('applies optional, superuser, verified and scopes', async () => {
      const c = suite.env.client();
      expect((await c.get('/api/optional')).body).toEqual({ user: null });
      expect((await c.get('/api/admin')).status).toBe(401);
      await c.login('alice', PASSWORD);
      expect((await c.get('/api/optional')).body.user).toEqual(expect.any(Number));
      expect((await c.get('/api/admin')).status).toBe(403);
      expect((await c.get('/api/verified')).status).toBe(403);
      expect((await c.get('/api/scoped')).status).toBe(403);
      await suite.env.user('root', { superuser: true, verified: true });
      const root = suite.env.client();
      await root.login('root', PASSWORD);
      expect((await root.get('/api/admin')).status).toBe(200);
      expect((await root.get('/api/verified')).status).toBe(200);
      expect((await root.get('/api/scoped')).status).toBe(200);
      expect((await root.get('/api/principal')).body).toMatchObject({
        isSuperuser: true,
        scopes: ['items:read', 'items:write'],
      });
    });

    it('signs a soft-deleted user out everywhere at once', async () => {
      const id = await suite.env.user('doomed');
      const c = suite.env.client();
      await c.login('doomed', PASSWORD);
      expect((await c.get('/auth/me')).status).toBe(200);
      await suite.env.db.knex('users').where('id', id).update({ is_deleted: true });
      expect((await c.get('/auth/me')).status).toBe(401);
      expect((await c.get('/api/principal')).body).toBeNull();
    });
  });
}
