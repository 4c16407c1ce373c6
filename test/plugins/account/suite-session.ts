// Registration, sign-in and the session transport, with the attacks a reviewer tries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../adapters/conformance';
import type { Engine } from '../../fixtures/db';
import { clock, Client, PASSWORD, startAccountApp, type AccountEnv } from './fixture';

export function sessionSuite(harness: AdapterHarness, engine: Engine): void {
  describe(`account: registration and sessions on ${harness.name} / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      env = await startAccountApp(harness, engine);
    });
    afterAll(async () => env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    describe('POST /register', () => {
      it('creates an account (201) answering public fields only, and it can sign in', async () => {
        const c = env.client();
        const res = await c.request('POST', '/auth/register', { json: { username: 'reg1', email: 'reg1@example.com', password: PASSWORD, name: 'Reg One' } });
        expect(res.status).toBe(201);
        expect(res.body).toEqual({ id: expect.any(Number), username: 'reg1', email: 'reg1@example.com', name: 'Reg One' });
        expect((await c.login('reg1', PASSWORD)).status).toBe(200);
      });

      it('refuses privilege fields in the body (422) and creates nothing', async () => {
        const c = env.client();
        for (const extra of [{ is_superuser: true }, { is_verified: true }, { token_version: 5 }, { hashed_password: 'x' }, { id: 999 }]) {
          const res = await c.request('POST', '/auth/register', { json: { username: 'sneaky', email: 'sneaky@example.com', password: PASSWORD, ...extra } });
          expect(res.status).toBe(422);
          expect(res.body.detail[0]).toMatchObject({ loc: ['body', Object.keys(extra)[0]], type: 'extra_forbidden' });
        }
        expect(await env.db.knex('users').where('username', 'sneaky').first()).toBeUndefined();
      });

      it('answers 422 for a value longer than its column, and for missing fields', async () => {
        const c = env.client();
        const long = await c.request('POST', '/auth/register', { json: { username: 'u'.repeat(21), email: 'long@example.com', password: PASSWORD } });
        expect(long.status).toBe(422);
        expect(long.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'username'], type: 'string_too_long' })]);
        const email = await c.request('POST', '/auth/register', { json: { username: 'okname', email: `${'e'.repeat(45)}@example.com`, password: PASSWORD } });
        expect(email.body.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'string_too_long' });
        const name = await c.request('POST', '/auth/register', { json: { username: 'okname', email: 'ok@example.com', password: PASSWORD, name: 'n'.repeat(31) } });
        expect(name.status).toBe(422);
        const missing = await c.request('POST', '/auth/register', { json: {} });
        expect(missing.status).toBe(422);
        expect(missing.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['email', 'password', 'username']);
      });

      it('applies the password policy: length, common passwords, context; no composition rules', async () => {
        const c = env.client();
        const attempt = (password: string, username = 'policy') =>
          c.request('POST', '/auth/register', { json: { username, email: `${username}@example.com`, password } });
        expect((await attempt('short7!')).body.detail[0].type).toBe('string_too_short');
        expect((await attempt('password1')).body.detail[0].type).toBe('password_common');
        expect((await attempt('Qwertyuiop')).body.detail[0].type).toBe('password_common');
        expect((await attempt('policyuser', 'policyuser')).body.detail[0].type).toBe('password_context');
        expect((await attempt('x'.repeat(1025))).body.detail[0].type).toBe('string_too_long');
        // All lower-case, no digit, no symbol: fine. A long Unicode passphrase: fine.
        expect((await attempt('tangerine meadow lantern', 'policy1')).status).toBe(201);
        expect((await attempt('très longue phrase de passe — ünïcödé 🎉'.repeat(4), 'policy2')).status).toBe(201);
      });

      it('answers 409 for a taken username or e-mail, whatever the case', async () => {
        await env.user('taken');
        const c = env.client();
        const byName = await c.request('POST', '/auth/register', { json: { username: 'TAKEN', email: 'other@example.com', password: PASSWORD } });
        expect(byName.status).toBe(409);
        const byEmail = await c.request('POST', '/auth/register', { json: { username: 'other', email: 'Taken@Example.com', password: PASSWORD } });
        expect(byEmail.status).toBe(409);
      });

      it('refuses an @ in usernames (sign-in reads those as e-mails)', async () => {
        const res = await env.client().request('POST', '/auth/register', { json: { username: 'a@b', email: 'ab@example.com', password: PASSWORD } });
        expect(res.status).toBe(422);
      });
    });

    describe('passwords', () => {
      it('never truncates at 72 bytes: a password sharing its first 72 bytes does not sign in', async () => {
        const long = `${'ä'.repeat(36)}-tail-one`; // 72 bytes of ä, then more
        await env.user('longpw', { password: long });
        const c = env.client();
        expect((await c.login('longpw', `${'ä'.repeat(36)}-tail-two`)).status).toBe(401);
        expect((await c.login('longpw', long)).status).toBe(200);
      });

      it('normalises Unicode (NFKC): composed and decomposed forms are the same password', async () => {
        await env.user('unicode', { password: 'caf\u00e9 au lait please' });
        expect((await env.client().login('unicode', 'cafe\u0301 au lait please')).status).toBe(200);
      });

      it('stores bcrypt hashes only', async () => {
        const row = await env.db.knex('users').where('username', 'unicode').first();
        expect(row.hashed_password).toMatch(/^\$2[aby]\$04\$/);
      });
    });

    describe('POST /login', () => {
      it('sets an HttpOnly session cookie and a readable CSRF cookie, answering csrf_token', async () => {
        await env.user('alice');
        const c = env.client();
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
        expect((await env.client().login('alice@example.com', PASSWORD)).status).toBe(200);
        expect((await env.client().login('ALICE', PASSWORD)).status).toBe(200);
        expect((await env.client().login('Alice@EXAMPLE.com', PASSWORD)).status).toBe(200);
      });

      it('answers one uniform 401 for a wrong password, an unknown user and a deleted user', async () => {
        const deleted = await env.user('gone');
        await env.db.knex('users').where('id', deleted).update({ is_deleted: true });
        const answers = await Promise.all([
          env.client().login('alice', 'wrong password here'),
          env.client().login('nobody-at-all', 'wrong password here'),
          env.client().login('gone', PASSWORD),
        ]);
        for (const res of answers) {
          expect(res.status).toBe(401);
          expect(res.body).toEqual({ detail: 'Incorrect username or password' });
          expect(res.cookies.size).toBe(0);
        }
      });

      it('answers 422 without the form fields', async () => {
        expect((await env.client().request('POST', '/auth/login', { form: { username: 'alice' } })).status).toBe(422);
      });

      it('refuses a cross-site sign-in (login CSRF)', async () => {
        const res = await env.client().request('POST', '/auth/login', { form: { username: 'alice', password: PASSWORD }, headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
        expect(res.status).toBe(403);
      });

      it('issues a new session id at every sign-in, and never adopts a planted one (fixation)', async () => {
        const attacker = env.client();
        await env.user('mallory');
        await attacker.login('mallory', PASSWORD);
        const planted = attacker.jar.get('cs_session')!;

        const victim = env.client();
        victim.jar.set('cs_session', planted);
        await victim.login('alice', PASSWORD);
        const own = victim.jar.get('cs_session');
        expect(own).not.toBe(planted);
        // The planted id is dead; it never became Alice's.
        expect((await attacker.get('/auth/me')).status).toBe(401);

        const forged = env.client();
        forged.jar.set('cs_session', 'A'.repeat(43));
        await forged.login('alice', PASSWORD);
        expect(forged.jar.get('cs_session')).not.toBe('A'.repeat(43));
        await victim.login('alice', PASSWORD);
        expect(victim.jar.get('cs_session')).not.toBe(own);
      });
    });

    describe('CSRF on session requests', () => {
      let c: Client;
      beforeAll(async () => {
        c = env.client();
        await c.login('alice', PASSWORD);
      });

      it('lets safe verbs through without the header', async () => {
        expect((await c.get('/api/private')).status).toBe(200);
      });

      it('answers 403 to an unsafe verb without the header, or with a wrong one', async () => {
        expect((await c.request('POST', '/api/private')).status).toBe(403);
        expect((await c.request('POST', '/api/private', { headers: { 'x-csrf-token': 'wrong' } })).status).toBe(403);
        // The cookie's value is not enough on its own: only the header counts, and it must match the session's token.
        const other = env.client();
        await other.login('alice', PASSWORD);
        expect((await c.request('POST', '/api/private', { headers: { 'x-csrf-token': other.jar.get('cs_csrf')! } })).status).toBe(403);
        expect((await c.post('/api/private')).status).toBe(200);
      });

      it('refuses a cross-site form post to a session route', async () => {
        const before = (await env.db.knex('users').where('username', 'alice').first()).hashed_password;
        const res = await c.request('POST', '/auth/change-password', {
          form: { current_password: PASSWORD, new_password: 'attacker chosen password' },
          headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        });
        expect(res.status).toBe(403);
        expect((await env.db.knex('users').where('username', 'alice').first()).hashed_password).toBe(before);
        expect((await c.request('POST', '/auth/logout')).status).toBe(403);
        expect((await c.get('/auth/me')).status).toBe(200);
      });

      it('counts a forged unsafe request as anonymous for the principal', async () => {
        expect((await c.request('POST', '/api/principal')).body).toBeNull();
        expect((await c.post('/api/principal')).body).toMatchObject({ isSuperuser: false, transport: 'session', tierId: null });
      });
    });

    describe('GET /me and the dependencies', () => {
      it('answers id, scopes and transport; 401 when anonymous', async () => {
        const c = env.client();
        expect((await c.get('/auth/me')).status).toBe(401);
        await c.login('alice', PASSWORD);
        const id = (await env.db.knex('users').where('username', 'alice').first()).id;
        expect((await c.get('/auth/me')).body).toEqual({ id, scopes: ['items:read'], transport: 'session' });
      });

      it('never hands out the password hash', async () => {
        const c = env.client();
        await c.login('alice', PASSWORD);
        const me = await c.get('/api/whoami');
        expect(me.body.username).toBe('alice');
        expect(me.body).not.toHaveProperty('hashed_password');
      });

      it('applies optional, superuser, verified and scopes', async () => {
        const c = env.client();
        expect((await c.get('/api/optional')).body).toEqual({ user: null });
        expect((await c.get('/api/admin')).status).toBe(401);
        await c.login('alice', PASSWORD);
        expect((await c.get('/api/optional')).body.user).toEqual(expect.any(Number));
        expect((await c.get('/api/admin')).status).toBe(403);
        expect((await c.get('/api/verified')).status).toBe(403);
        expect((await c.get('/api/scoped')).status).toBe(403);
        await env.user('root', { superuser: true, verified: true });
        const root = env.client();
        await root.login('root', PASSWORD);
        expect((await root.get('/api/admin')).status).toBe(200);
        expect((await root.get('/api/verified')).status).toBe(200);
        expect((await root.get('/api/scoped')).status).toBe(200);
        expect((await root.get('/api/principal')).body).toMatchObject({ isSuperuser: true, scopes: ['items:read', 'items:write'] });
      });

      it('signs a soft-deleted user out everywhere at once', async () => {
        const id = await env.user('doomed');
        const c = env.client();
        await c.login('doomed', PASSWORD);
        expect((await c.get('/auth/me')).status).toBe(200);
        await env.db.knex('users').where('id', id).update({ is_deleted: true });
        expect((await c.get('/auth/me')).status).toBe(401);
        expect((await c.get('/api/principal')).body).toBeNull();
      });
    });

    describe('POST /logout', () => {
      it('ends the session and clears the cookies; the old cookie is dead', async () => {
        const c = env.client();
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
        expect((await env.client().post('/auth/logout')).status).toBe(401);
      });
    });

    describe('management routes', () => {
      it('lists sessions by public handle, marking the current one', async () => {
        await env.user('manager');
        const a = env.client();
        const b = env.client();
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
        expect((await env.client().get('/auth/sessions')).status).toBe(401);
      });

      it("revokes one session (404 for an unknown one or another user's)", async () => {
        const a = env.client();
        const b = env.client();
        const stranger = env.client();
        await env.user('revoker');
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
        await env.user('everywhere');
        const [a, b, c] = [env.client(), env.client(), env.client()];
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
        const c = env.client();
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

    describe('POST /change-password and /set-password', () => {
      it('answers 401 for a wrong current password, 422 for a weak new one, 422 for missing fields', async () => {
        await env.user('changer');
        const c = env.client();
        await c.login('changer', PASSWORD);
        expect((await c.post('/auth/change-password', { current_password: 'not it at all', new_password: 'a fresh new secret' })).status).toBe(401);
        expect((await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'password1' })).status).toBe(422);
        expect((await c.post('/auth/change-password', { new_password: 'a fresh new secret' })).status).toBe(422);
      });

      it('changes it: other sessions and every bearer token die, this session stays', async () => {
        await env.user('mover');
        const here = env.client();
        const there = env.client();
        await here.login('mover', PASSWORD);
        await there.login('mover', PASSWORD);
        const token = (await env.client().request('POST', '/auth/token', { form: { username: 'mover', password: PASSWORD } })).body;
        const bearer = { authorization: `Bearer ${token.access_token}` };
        expect((await env.client().get('/auth/me', bearer)).status).toBe(200);

        const res = await here.post('/auth/change-password', { current_password: PASSWORD, new_password: 'a fresh new secret' });
        expect(res).toMatchObject({ status: 200, body: { message: 'Password changed' } });
        expect((await here.get('/auth/me')).status).toBe(200);
        expect((await there.get('/auth/me')).status).toBe(401);
        expect((await env.client().get('/auth/me', bearer)).status).toBe(401);
        expect((await env.client().request('POST', '/auth/refresh', { json: { refresh_token: token.refresh_token } })).status).toBe(401);
        expect((await env.client().login('mover', PASSWORD)).status).toBe(401);
        expect((await env.client().login('mover', 'a fresh new secret')).status).toBe(200);
      });

      it('set-password: 400 when a password exists, 200 for an account without, 403 when the sign-in is stale', async () => {
        const id = await env.user('oauthish');
        const c = env.client();
        await c.login('oauthish', PASSWORD);
        expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(400);
        expect((await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'x' })).status).toBe(422);
        await env.db.knex('users').where('id', id).update({ hashed_password: null });
        expect((await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'my very first one' })).status).toBe(400);
        expect((await c.post('/auth/set-password', { new_password: 'password1' })).status).toBe(422);
        clock.skew = 601_000;
        // Still signed in (idle timeout is longer), but not freshly.
        expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(403);
        clock.skew = 0;
        expect((await c.post('/auth/set-password', { new_password: 'my very first one' })).status).toBe(200);
        expect((await env.client().login('oauthish', 'my very first one')).status).toBe(200);
      });
    });

    describe('sudo', () => {
      it('gates a route until the password is confirmed', async () => {
        const c = env.client();
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
        await env.user('locked');
        const tries = ['locked', 'LOCKED', 'Locked', 'locked@example.com', 'LOCKED@EXAMPLE.COM'];
        for (const name of tries) expect((await env.client().login(name, 'bad password attempt')).status).toBe(401);
        const res = await env.client().login('LoCkEd', PASSWORD);
        expect(res.status).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(30);
        // Shared with /token.
        const token = await env.client().request('POST', '/auth/token', { form: { username: 'locked@example.com', password: PASSWORD } });
        expect(token.status).toBe(429);
        // Lifts once the lock expires; the next failure locks twice as long.
        clock.skew = 31_000;
        expect((await env.client().login('locked', 'bad password attempt')).status).toBe(401);
        const longer = await env.client().login('locked', PASSWORD);
        expect(longer.status).toBe(429);
        expect(Number(longer.headers.get('retry-after'))).toBeGreaterThan(30);
        clock.skew = 31_000 + 61_000;
        expect((await env.client().login('locked', PASSWORD)).status).toBe(200);
      });

      it('locks unknown names the same way, so a lock reveals nothing', async () => {
        for (let i = 0; i < 5; i++) expect((await env.client().login('NoSuchUser', 'bad password attempt')).status).toBe(401);
        expect((await env.client().login('nosuchuser', 'bad password attempt')).status).toBe(429);
      });
    });
  });
}
