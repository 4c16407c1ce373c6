// The bearer transport: tokens, refresh rotation and reuse, and the cookie refresh mode.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../adapters/conformance';
import type { Engine } from '../../fixtures/db';
import { clock, PASSWORD, startAccountApp, type AccountEnv } from './fixture';

export function bearerSuite(harness: AdapterHarness, engine: Engine): void {
  describe(`account: bearer transport on ${harness.name} / ${engine}`, () => {
    let env: AccountEnv;
    const token = (username = 'bob', password = PASSWORD, scope?: string) =>
      env
        .client()
        .request('POST', '/auth/token', { form: { username, password, ...(scope === undefined ? {} : { scope }) } });
    const refresh = (refresh_token: string) =>
      env.client().request('POST', '/auth/refresh', { json: { refresh_token } });
    const me = (access: string) => env.client().get('/auth/me', { authorization: `Bearer ${access}` });

    beforeAll(async () => {
      env = await startAccountApp(harness, engine);
      await env.user('bob');
      await env.user('boss', { superuser: true });
    });
    afterAll(async () => env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    it('POST /token answers access_token, token_type and refresh_token (mode body)', async () => {
      const res = await token();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 900,
        refresh_token: expect.any(String),
      });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.cookies.size).toBe(0);
      const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ token_version: 0, scope: 'items:read', typ: 'access' });
      expect(claims.exp - claims.iat).toBe(900);
    });

    it('answers the uniform 401 for bad credentials, 422 without the fields', async () => {
      expect((await token('bob', 'wrong password')).body).toEqual({ detail: 'Incorrect username or password' });
      expect((await token('nobody', 'wrong password')).status).toBe(401);
      expect((await env.client().request('POST', '/auth/token', { form: { username: 'bob' } })).status).toBe(422);
    });

    it('authenticates with the Authorization header only, and needs no CSRF header', async () => {
      const { access_token } = (await token()).body;
      expect((await me(access_token)).body).toEqual({
        id: expect.any(Number),
        scopes: ['items:read'],
        transport: 'bearer',
      });
      expect((await env.client().get(`/auth/me?access_token=${access_token}`)).status).toBe(401);
      const post = await env
        .client()
        .request('POST', '/api/private', { headers: { authorization: `bearer ${access_token}` } });
      expect(post.status).toBe(200);
    });

    it('grants the scopes asked for among those held', async () => {
      const narrow = (await token('boss', PASSWORD, 'items:read')).body.access_token;
      expect((await me(narrow)).body.scopes).toEqual(['items:read']);
      expect((await env.client().get('/api/scoped', { authorization: `Bearer ${narrow}` })).status).toBe(403);
      const wide = (await token('boss', PASSWORD, 'items:read items:write admin:everything')).body.access_token;
      expect((await me(wide)).body.scopes).toEqual(['items:read', 'items:write']);
      expect((await env.client().get('/api/scoped', { authorization: `Bearer ${wide}` })).status).toBe(200);
    });

    it('refuses tampered, foreign-algorithm and expired tokens (401)', async () => {
      const { access_token } = (await token()).body;
      const [header, payload, signature] = access_token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: '2' })).toString('base64url');
      expect((await me(`${header}.${forged}.${signature}`)).status).toBe(401);
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      expect((await me(`${none}.${payload}.`)).status).toBe(401);
      expect((await me('not-a-token')).status).toBe(401);
      const res = await me(`${header}.${payload}.${signature.slice(0, -2)}xx`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
      clock.skew = 901_000;
      expect((await me(access_token)).status).toBe(401);
      // Even where sign-in is optional, a bad token is an error, not anonymity.
      expect((await env.client().get('/api/optional', { authorization: 'Bearer junk' })).status).toBe(401);
    });

    it('rotates refresh tokens; reusing a rotated one revokes the whole family', async () => {
      const first = (await token()).body;
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect((await me(second.body.access_token)).status).toBe(200);
      const third = await refresh(second.body.refresh_token);
      expect(third.status).toBe(200);

      const replay = await refresh(first.refresh_token);
      expect(replay.status).toBe(401);
      expect(replay.body.detail).toMatch(/reused/);
      // The thief's replay killed the legitimate holder's current token too.
      expect((await refresh(third.body.refresh_token)).status).toBe(401);
      // Other families are untouched.
      expect((await refresh((await token()).body.refresh_token)).status).toBe(200);
    });

    it('lets at most one of concurrent uses of a refresh token win', async () => {
      const { refresh_token } = (await token()).body;
      const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(refresh_token)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 401)).toHaveLength(4);
    });

    it('stores refresh tokens hashed only', async () => {
      const { refresh_token } = (await token()).body;
      const rows = await env.db.knex('account_refresh_tokens').select();
      expect(JSON.stringify(rows)).not.toContain(refresh_token);
    });

    it('refuses an unknown, missing or expired refresh token', async () => {
      expect((await refresh('made-up')).status).toBe(401);
      expect((await env.client().request('POST', '/auth/refresh')).status).toBe(401);
      const { refresh_token } = (await token()).body;
      clock.skew = 31 * 86_400_000;
      expect((await refresh(refresh_token)).status).toBe(401);
    });

    it('kills tokens of a soft-deleted user', async () => {
      const id = await env.user('fleeting');
      const { access_token, refresh_token } = (await token('fleeting')).body;
      await env.db.knex('users').where('id', id).update({ is_deleted: true });
      expect((await me(access_token)).status).toBe(401);
      expect((await refresh(refresh_token)).status).toBe(401);
      expect((await token('fleeting')).status).toBe(401);
    });

    it('sudo for a bearer caller answers a token that carries it', async () => {
      const { access_token } = (await token()).body;
      const auth = { authorization: `Bearer ${access_token}` };
      expect((await env.client().request('POST', '/api/sensitive', { headers: auth })).status).toBe(403);
      const grant = await env.client().request('POST', '/api/sudo', { json: { password: PASSWORD }, headers: auth });
      expect(grant.status).toBe(200);
      const elevated = { authorization: `Bearer ${grant.body.access_token}` };
      expect((await env.client().request('POST', '/api/sensitive', { headers: elevated })).status).toBe(200);
    });
  });

  describe(`account: bearer-only app, refresh mode cookie, on ${harness.name} / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      env = await startAccountApp(harness, engine, {
        session: false,
        bearer: { refresh: 'cookie' },
        registerRateLimit: { limit: 2, periodSeconds: 3600 },
      });
      await env.user('carol');
    });
    afterAll(async () => env?.close());

    it('puts the refresh token in an HttpOnly cookie, rotates it, and /logout revokes and clears it', async () => {
      const c = env.client();
      const res = await c.request('POST', '/auth/token', { form: { username: 'carol', password: PASSWORD } });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('refresh_token');
      const set = res.cookies.get('cs_refresh')!;
      expect(set).toMatch(/HttpOnly/i);
      expect(set).toMatch(/SameSite=Lax/i);
      expect(set).toMatch(/Path=\//);
      const first = c.jar.get('cs_refresh')!;

      const rotated = await c.request('POST', '/auth/refresh');
      expect(rotated.status).toBe(200);
      expect(rotated.body.access_token).toEqual(expect.any(String));
      expect(c.jar.get('cs_refresh')).not.toBe(first);
      const current = c.jar.get('cs_refresh')!;

      const out = await c.request('POST', '/auth/logout');
      expect(out.status).toBe(200);
      expect(out.cookies.get('cs_refresh')).toMatch(/Max-Age=0/i);
      c.jar.set('cs_refresh', current);
      expect((await c.request('POST', '/auth/refresh')).status).toBe(401);
    });

    it('limits /register per client address (429 with Retry-After)', async () => {
      const c = env.client();
      const register = (n: number) =>
        c.request('POST', '/auth/register', {
          json: { username: `r${n}`, email: `r${n}@example.com`, password: PASSWORD },
        });
      expect((await register(1)).status).toBe(201);
      expect((await register(2)).status).toBe(201);
      const third = await register(3);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await env.db.knex('users').where('username', 'r3').first()).toBeUndefined();
    });

    it('mounts no session routes', async () => {
      const c = env.client();
      expect((await c.request('POST', '/auth/login', { form: { username: 'carol', password: PASSWORD } })).status).toBe(
        404,
      );
      expect((await c.get('/auth/sessions')).status).toBe(404);
    });
  });
}
