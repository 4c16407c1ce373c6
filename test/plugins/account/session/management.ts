// Sign-out and the management routes: /sessions, DELETE /sessions/{id}, /logout-all, /csrf/refresh.
import { describe, expect, it } from 'vitest';
import { PASSWORD, type AccountEnv } from '../fixture';

/** Registers these tests against the suite's app (started by `sessionSuite`). */
export function managementTests(suite: { env: AccountEnv }): void {
  describe('POST /logout', () => {
    it('ends the session and clears the cookies; the old cookie is dead', async () => {
      const c = suite.env.client();
      await c.login('alice', PASSWORD);
      const old = c.jar.get('cs_session')!;
      const res = await c.post('/auth/logout');
      expect(res.status).toBe(200);
      expect(res.cookies.get('cs_session')).toMatch(/Max-Age=0/i);
      expect(res.cookies.get('cs_csrf')).toMatch(/Max-Age=0/i);
      expect(c.jar.has('cs_session')).toBe(false);
      c.jar.set('cs_session', old);
      expect((await c.get('/auth/me')).status).toBe(401);
    });

    it('answers 401 without a session', async () => {
      expect((await suite.env.client().post('/auth/logout')).status).toBe(401);
    });
  });

  describe('management routes', () => {
    it('lists sessions by public handle, marking the current one', async () => {
      await suite.env.user('manager');
      const a = suite.env.client();
      const b = suite.env.client();
      await a.login('manager', PASSWORD);
      await b.login('manager', PASSWORD);
      const list = await a.get('/auth/sessions');
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(2);
      expect(list.body.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      const text = JSON.stringify(list.body);
      expect(text).not.toContain(a.jar.get('cs_session'));
      expect(text).not.toContain(a.jar.get('cs_csrf'));
      expect(text).not.toContain(b.jar.get('cs_session'));
      expect((await suite.env.client().get('/auth/sessions')).status).toBe(401);
    });

    it("revokes one session (404 for an unknown one or another user's)", async () => {
      const a = suite.env.client();
      const b = suite.env.client();
      const stranger = suite.env.client();
      await suite.env.user('revoker');
      await a.login('revoker', PASSWORD);
      await b.login('revoker', PASSWORD);
      await stranger.login('alice', PASSWORD);
      const theirs = (await stranger.get('/auth/sessions')).body[0].id;
      expect((await a.del(`/auth/sessions/${theirs}`)).status).toBe(404);
      expect((await a.del('/auth/sessions/unknown')).status).toBe(404);
      expect((await stranger.get('/auth/me')).status).toBe(200);
      const other = (await a.get('/auth/sessions')).body.find((s: { current: boolean }) => !s.current).id;
      expect((await a.request('DELETE', `/auth/sessions/${other}`)).status).toBe(403);
      expect((await a.del(`/auth/sessions/${other}`)).status).toBe(200);
      expect((await b.get('/auth/me')).status).toBe(401);
      expect((await a.get('/auth/me')).status).toBe(200);
    });

    it('logs out everywhere, keeping the current session with keep_current=true', async () => {
      await suite.env.user('everywhere');
      const [a, b, c] = [suite.env.client(), suite.env.client(), suite.env.client()];
      for (const x of [a, b, c]) await x.login('everywhere', PASSWORD);
      const kept = await a.post('/auth/logout-all?keep_current=true');
      expect(kept).toMatchObject({ status: 200, body: { revoked: 2 } });
      expect((await a.get('/auth/me')).status).toBe(200);
      expect((await b.get('/auth/me')).status).toBe(401);
      const all = await a.post('/auth/logout-all');
      expect(all.body).toEqual({ revoked: 1 });
      expect((await a.get('/auth/me')).status).toBe(401);
    });

    it('re-mints the CSRF token without needing the header; the old token stops working', async () => {
      const c = suite.env.client();
      expect((await c.request('POST', '/auth/csrf/refresh')).status).toBe(401);
      await c.login('alice', PASSWORD);
      const old = c.jar.get('cs_csrf')!;
      const res = await c.request('POST', '/auth/csrf/refresh');
      expect(res.status).toBe(200);
      expect(res.body.csrf_token).not.toBe(old);
      expect(c.jar.get('cs_csrf')).toBe(res.body.csrf_token);
      expect((await c.request('POST', '/api/private', { headers: { 'x-csrf-token': old } })).status).toBe(403);
      expect((await c.post('/api/private')).status).toBe(200);
    });
  });
}
