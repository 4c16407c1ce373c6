// Two example-app processes sharing one PostgreSQL database and one Redis
// (REDIS_URL: sessions in Redis) behave as one. A is Koa (koa-session carries the
// session), B is Express (the neutral cookie path): the same sessions and tokens work on
// both, and a sign-out, a password change or a revocation (of a session or an API key) on
// one is refused on the other at once; a role change made on one is obeyed by the other
// within a second. SECRET_KEY is unset, so both also share the key kept in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';
import { describeRedis, REDIS, uniquePrefix } from '../plugins/rate-limit/redis-fixture';
import { startTwoApps, stopTwoApps, type AppProcess } from './spawn-app';

const PASSWORD = 'two processes, one deployment';
const NEW_PASSWORD = 'a brand new passphrase here';

const suite = ENGINES.includes('postgres') ? describeRedis : describe.skip;

suite('two example-app processes sharing PostgreSQL and Redis', () => {
  let db: TestDatabase;
  let a: AppProcess;
  let b: AppProcess;
  /** A browser on A, and the same browser (the same cookies) on B. */
  const browser = () => {
    const onA = new Client(a.url);
    return { onA, onB: new Client(b.url, onA.jar) };
  };
  const signIn = async (client: Client, password = PASSWORD) => {
    const res = await client.login('twin', password);
    expect(res.status).toBe(200);
    return res;
  };
  const token = async (base: string, password = PASSWORD) => {
    const res = await new Client(base).request('POST', '/auth/token', { form: { username: 'twin', password } });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string };
  };
  const bearer = (base: string, access: string) =>
    new Client(base).get('/auth/me', { authorization: `Bearer ${access}` });

  beforeAll(async () => {
    ({ db, a, b } = await startTwoApps((url) => ({
      DATABASE_URL: url,
      REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      REDIS_SESSION_PREFIX: `${uniquePrefix()}session:`,
    })));
    const res = await new Client(a.url).request('POST', '/auth/register', {
      json: { username: 'twin', email: 'twin@example.com', password: PASSWORD },
    });
    expect(res.status).toBe(201);
  }, 150_000);
  afterAll(() => stopTwoApps({ db, a, b }));

  it('keeps sessions in Redis, not in the database', async () => {
    const { onA } = browser();
    await signIn(onA);
    expect(Number((await db.knex('account_sessions').count({ n: '*' }))[0].n)).toBe(0);
  });

  it('a session cookie from A works on B, CSRF header included', async () => {
    const { onA, onB } = browser();
    await signIn(onA);
    const me = await onB.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ transport: 'session' });
    expect((await onB.get('/api/v1/users/me')).body).toMatchObject({ username: 'twin' });
    // An unsafe verb on B with A's CSRF token, and the sessions list sees one session from both sides.
    const refreshed = await onB.post('/auth/csrf/refresh');
    expect(refreshed.status).toBe(200);
    expect((await onA.get('/auth/sessions')).body.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect((await onA.post('/auth/csrf/refresh')).status).toBe(200);
  });

  it('a bearer token from A works on B', async () => {
    const { access_token } = await token(a.url);
    const me = await bearer(b.url, access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ transport: 'bearer' });
  });

  it('logout on A is refused on B at once', async () => {
    const { onA, onB } = browser();
    await signIn(onA);
    const cookie = onA.jar.get('cs_session')!;
    expect((await onB.get('/auth/me')).status).toBe(200);
    expect((await onA.post('/auth/logout')).status).toBe(200);
    const replay = new Client(b.url);
    replay.jar.set('cs_session', cookie);
    expect((await replay.get('/auth/me')).status).toBe(401);
  });

  it('logout-all on B ends the sessions and bearer tokens used on A', async () => {
    const first = browser();
    const second = browser();
    await signIn(first.onA);
    await signIn(second.onB);
    const { access_token } = await token(a.url);
    expect((await bearer(a.url, access_token)).status).toBe(200);

    const res = await second.onB.post('/auth/logout-all?keep_current=true');
    expect(res.status).toBe(200);
    expect(res.body.revoked).toBeGreaterThanOrEqual(1);
    expect((await first.onA.get('/auth/me')).status).toBe(401);
    expect((await first.onB.get('/auth/me')).status).toBe(401);
    expect((await bearer(a.url, access_token)).status).toBe(401);
    // keep_current: the caller's own session lives on, on both processes.
    expect((await second.onA.get('/auth/me')).status).toBe(200);
    expect((await second.onB.post('/auth/logout-all')).status).toBe(200);
    expect((await second.onA.get('/auth/me')).status).toBe(401);
  });

  it('change-password on A kills the other sessions and every token on B, keeping the current session', async () => {
    const other = browser();
    const current = browser();
    await signIn(other.onB);
    await signIn(current.onA);
    const { access_token, refresh_token } = await token(b.url);

    const res = await current.onA.post('/auth/change-password', {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(res.status).toBe(200);
    expect((await other.onB.get('/auth/me')).status).toBe(401);
    expect((await bearer(b.url, access_token)).status).toBe(401);
    expect((await new Client(b.url).request('POST', '/auth/refresh', { json: { refresh_token } })).status).toBe(401);
    expect((await current.onB.get('/auth/me')).status).toBe(200);

    // Put the password back through B, for the other tests.
    expect(
      (await current.onB.post('/auth/change-password', { current_password: NEW_PASSWORD, new_password: PASSWORD }))
        .status,
    ).toBe(200);
    await current.onB.post('/auth/logout');
  });

  it('refresh rotation spans processes: reusing a token rotated on B, on A, revokes the family', async () => {
    const first = await token(a.url);
    const rotated = await new Client(b.url).request('POST', '/auth/refresh', {
      json: { refresh_token: first.refresh_token },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    expect((await bearer(a.url, rotated.body.access_token)).status).toBe(200);

    const reuse = await new Client(a.url).request('POST', '/auth/refresh', {
      json: { refresh_token: first.refresh_token },
    });
    expect(reuse.status).toBe(401);
    expect(reuse.body.detail).toMatch(/reused/i);
    // The whole family is gone: the token B handed out is refused on B as well.
    expect(
      (
        await new Client(b.url).request('POST', '/auth/refresh', {
          json: { refresh_token: rotated.body.refresh_token },
        })
      ).status,
    ).toBe(401);
  });

  it('of concurrent refreshes of one token on A and B, at most one wins', async () => {
    const { refresh_token } = await token(a.url);
    const answers = await Promise.all(
      [a.url, b.url, a.url, b.url].map((base) =>
        new Client(base).request('POST', '/auth/refresh', { json: { refresh_token } }),
      ),
    );
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
  });

  it('a role change made on A is obeyed by B within the one-second bound; a key revoked on A is refused on B at once', async () => {
    const admin = await new Client(a.url).request('POST', '/auth/token', {
      form: { username: 'admin', password: 'admin-test-password-1' },
    });
    expect(admin.status).toBe(200);
    const asAdmin = { authorization: `Bearer ${admin.body.access_token}` };
    const asTwin = { authorization: `Bearer ${(await token(a.url)).access_token}` };
    const id = (await new Client(a.url).get('/api/v1/users/me', asTwin)).body.id;
    const setRoles = async (roles: string[]) => {
      const res = await new Client(a.url).request('PUT', `/api/v1/users/${id}/roles`, {
        headers: asAdmin,
        json: { roles },
      });
      expect(res.status).toBe(200);
      // Each process re-reads the change counter before its first use after a second has passed.
      await new Promise((done) => setTimeout(done, 1100));
    };
    const notesOnB = (headers: Record<string, string>) => new Client(b.url).get('/api/v1/notes/', headers);
    await setRoles(['viewer']);
    // A key scoped to notes:read, made on A; B reads the owner's role and caches it.
    const made = await new Client(a.url).request('POST', '/auth/api-keys', {
      headers: asTwin,
      json: { name: 'reader', scopes: ['notes:read'] },
    });
    expect(made.status).toBe(201);
    const key = { 'x-api-key': made.body.key };
    expect((await notesOnB(key)).status).toBe(200);
    expect((await new Client(b.url).get('/api/v1/users/me', asTwin)).body.roles).toEqual(['viewer']);
    // The role taken away on A: B, which cached it, refuses the key's reads once the bound has passed.
    await setRoles([]);
    expect((await notesOnB(key)).status).toBe(403);
    expect((await new Client(b.url).get('/api/v1/users/me', asTwin)).body.roles).toEqual([]);
    // Revoked on A: no longer a caller on B at all (401, where its narrowed rights were a 403).
    const revoked = await new Client(a.url).request('DELETE', `/auth/api-keys/${made.body.id}`, { headers: asTwin });
    expect(revoked.status).toBe(204);
    expect((await notesOnB(key)).status).toBe(401);
  });
});
