// On Koa, koa-session (7, under Koa 3) carries the account sessions. The app's
// own Koa middleware sees the same ctx.session as the routes, and every SessionManager
// rule still holds: hashed ids, regeneration at sign-in, revocation, no revived session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import { createSession } from 'koa-session';
import {
  ConfigurationError,
  bootstrap,
  type App,
  type ErrorLogger,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import { hashSecret, MemorySessionStore, type SessionChanges, type SessionManager } from '@crudsmith/core/auth';
import { koaSessionOptions, mountRoutes } from '@crudsmith/koa';
import { account, type AccountPlugin } from '@crudsmith/account';
import { listen } from '../../adapters/koa-harness';
import type { MountedServer } from '../../adapters/conformance';
import { ENGINES, openDatabase, type TestDatabase } from '../../fixtures/db';
import { Client, PASSWORD, SECRET, User, userMigrations } from './fixture';
import { koaSessionApp } from './koa-session-app';

type Data = Record<string, unknown>;

/** The plugin and a route that reads and writes the session data through the manager, as any route would. */
function build(db: TestDatabase, logger?: ErrorLogger): { auth: AccountPlugin; manager: SessionManager; app: App } {
  const auth = account({
    knex: db.knex,
    userModel: User,
    secretKey: SECRET,
    path: '/auth',
    session: { managementRoutes: true },
    password: { bcryptRounds: 4 },
  });
  const manager = auth.sessionManager!;
  const data: RouteDescriptor[] = [
    {
      method: 'GET',
      path: '/api/session-data',
      operation: 'session_data_read',
      dependencies: [],
      handler: async (req) => ({ status: 200, json: { data: (await manager.load(req))?.data ?? null } }),
    },
    {
      method: 'POST',
      path: '/api/session-data',
      operation: 'session_data_write',
      dependencies: [auth.currentUser()],
      handler: async (req: NeutralRequest) => {
        const session = (await manager.load(req))!;
        session.data.route_note = (req.body as Data).note;
        return { status: 200, json: { saved: await manager.save(session) } };
      },
    },
    {
      method: 'POST',
      path: '/api/session-regenerate',
      operation: 'session_regenerate',
      dependencies: [auth.currentUser()],
      handler: async (req: NeutralRequest) => {
        const issued = (await manager.regenerate((await manager.load(req))!))!;
        issued.session.data.regenerated = true;
        return { status: 200, cookies: [issued.cookie], json: { saved: await manager.save(issued.session) } };
      },
    },
  ];
  const app = bootstrap({ routers: [data], plugins: [auth], migrations: [userMigrations], logger });
  return { auth, manager, app };
}

describe.each(ENGINES)('koa-session carries the account sessions on %s', (engine) => {
  let db: TestDatabase;
  let auth: AccountPlugin;
  let manager: SessionManager;
  let server: MountedServer;
  /** What the app's own middleware saw of ctx.session on the last request: before the routes, and after. */
  let seen: { before: Data | null; after: Data | null };

  const stored = async (cookie: string) => db.knex('account_sessions').where('id_hash', hashSecret(cookie)).first();
  const signedIn = async (username: string) => {
    const c = new Client(server.url);
    expect((await c.login(username, PASSWORD)).status).toBe(200);
    return c;
  };

  beforeAll(async () => {
    db = await openDatabase(engine);
    const built = build(db);
    ({ auth, manager } = built);
    await built.app.start(db.knex);
    for (const name of ['kim', 'lee', 'max'])
      await auth.createUser({ username: name, email: `${name}@example.com`, password: PASSWORD });

    const koa = new Koa();
    koa.use(createSession(koaSessionOptions(manager), koa));
    // The app's own middleware, before the routes: it reads and writes ctx.session as any Koa app does.
    koa.use(async (ctx, next) => {
      const snapshot = () => (ctx.session ? (ctx.session.toJSON() as Data) : null);
      seen = { before: snapshot(), after: null };
      const revoke = ctx.get('x-revoke-now');
      if (revoke) await db.knex('account_sessions').where('id_hash', revoke).delete();
      const write = ctx.get('x-app-write');
      if (write) ctx.session!.theme = write;
      if (ctx.get('x-app-sign-out')) ctx.session = null;
      await next();
      seen.after = snapshot();
      const late = ctx.get('x-app-write-after');
      if (late) ctx.session!.late = late;
    });
    mountRoutes(koa, built.app.routes, { sessions: [manager] });
    server = await listen(koa);
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  it('sign-in: the app middleware sees the new session (its CSRF token) as soon as the route returns', async () => {
    const c = new Client(server.url);
    const res = await c.login('kim', PASSWORD);
    expect(res.status).toBe(200);
    expect(seen.before).toEqual({});
    expect(seen.after).toMatchObject({ csrf: res.body.csrf_token, auth_time: expect.any(Number) });
    // The cookie is the manager's alone: one Set-Cookie, HttpOnly, SameSite=Lax, Path=/ and host-only, an id stored only as its hash.
    const lines = res.headers.getSetCookie().filter((l) => l.startsWith('cs_session='));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/HttpOnly/i);
    expect(lines[0]).toMatch(/SameSite=Lax/i);
    expect(lines[0]).toMatch(/Path=\//);
    expect(lines[0]).not.toMatch(/Domain=/i);
    expect(res.headers.getSetCookie().some((l) => l.startsWith('cs_session.sig'))).toBe(false);
    const cookie = c.jar.get('cs_session')!;
    const row = await stored(cookie);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(cookie);
  });

  it('a value the app middleware writes reaches the routes, is stored, and comes back on the next request', async () => {
    const c = await signedIn('kim');
    expect((await c.get('/api/session-data', { 'x-app-write': 'dark' })).body.data).toMatchObject({ theme: 'dark' });
    expect(JSON.parse((await stored(c.jar.get('cs_session')!)).data)).toMatchObject({ theme: 'dark' });
    await c.get('/auth/me');
    expect(seen.before).toMatchObject({ theme: 'dark', csrf: c.jar.get('cs_csrf') });
  });

  it('a value a route writes is what the app middleware sees after the route, and on the next request', async () => {
    const c = await signedIn('kim');
    const res = await c.post('/api/session-data', { note: 'from the route' });
    expect(res.body).toEqual({ saved: true });
    expect(seen.after).toMatchObject({ route_note: 'from the route' });
    await c.get('/auth/me');
    expect(seen.before).toMatchObject({ route_note: 'from the route' });
    const refreshed = await c.post('/auth/csrf/refresh');
    expect(refreshed.status).toBe(200);
    expect(seen.after).toMatchObject({ csrf: refreshed.body.csrf_token, route_note: 'from the route' });
  });

  it('anonymous requests have an empty ctx.session, and what the app writes there is neither stored nor sent', async () => {
    const c = new Client(server.url);
    const before = Number((await db.knex('account_sessions').count({ n: '*' }))[0].n);
    const res = await c.get('/api/session-data', { 'x-app-write': 'anonymous' });
    expect(res.body).toEqual({ data: null });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(Number((await db.knex('account_sessions').count({ n: '*' }))[0].n)).toBe(before);
  });

  it('sign-out: the app middleware sees an empty session, and a write after the route revives nothing', async () => {
    const c = await signedIn('lee');
    const cookie = c.jar.get('cs_session')!;
    const res = await c.request('POST', '/auth/logout', {
      headers: { 'x-csrf-token': c.jar.get('cs_csrf')!, 'x-app-write-after': 'too late' },
    });
    expect(res.status).toBe(200);
    expect(seen.after).toEqual({});
    expect(await stored(cookie)).toBeUndefined();
    // The old cookie, replayed with a write from the app: still dead, still not stored.
    const replay = new Client(server.url);
    replay.jar.set('cs_session', cookie);
    expect((await replay.get('/auth/me', { 'x-app-write': 'revive?' })).status).toBe(401);
    expect(await stored(cookie)).toBeUndefined();
    expect(seen.before).toEqual({});
  });

  it('a session revoked while its request is in flight is not revived by the app writing to ctx.session', async () => {
    const c = await signedIn('max');
    const cookie = c.jar.get('cs_session')!;
    // Another process revokes the session after this request loaded it; the app then writes, before and after the route.
    const res = await c.request('POST', '/api/session-data', {
      json: { note: 'in flight' },
      headers: {
        'x-csrf-token': c.jar.get('cs_csrf')!,
        'x-revoke-now': hashSecret(cookie),
        'x-app-write': 'x',
        'x-app-write-after': 'late write',
      },
    });
    expect(res.body).toEqual({ saved: false });
    expect(await stored(cookie)).toBeUndefined();
    expect((await c.get('/auth/me')).status).toBe(401);
  });

  it('DELETE /sessions/{own id} and logout-all empty ctx.session for the rest of the request', async () => {
    const c = await signedIn('kim');
    const own = (await c.get('/auth/sessions')).body.find((s: { current: boolean }) => s.current).id;
    expect((await c.del(`/auth/sessions/${own}`)).status).toBe(200);
    expect(seen.after).toEqual({});
    const d = await signedIn('kim');
    expect((await d.post('/auth/logout-all')).status).toBe(200);
    expect(seen.after).toEqual({});
    expect((await d.get('/auth/me')).status).toBe(401);
  });

  it('ctx.session = null in the app middleware signs the user out (the session is revoked, the cookie cleared)', async () => {
    const c = await signedIn('lee');
    const cookie = c.jar.get('cs_session')!;
    const res = await c.get('/auth/me', { 'x-app-sign-out': '1' });
    // The route ran without a session: the middleware ended it first.
    expect(res.status).toBe(401);
    expect(await stored(cookie)).toBeUndefined();
    const cleared = res.headers.getSetCookie().find((l) => l.startsWith('cs_session='))!;
    expect(cleared).toMatch(/expires=Thu, 01 Jan 1970/i);
    expect(cleared).toMatch(/SameSite=Lax/i);
    expect(cleared).toMatch(/HttpOnly/i);
    expect(cleared).toMatch(/path=\/(;|$)/i);
  });

  it("the manager's regenerate moves the request's ctx.session to the new id; the old id dies", async () => {
    const c = await signedIn('kim');
    const old = c.jar.get('cs_session')!;
    const csrf = c.jar.get('cs_csrf')!;
    const res = await c.post('/api/session-regenerate');
    expect(res.body).toEqual({ saved: true });
    expect(seen.after).toMatchObject({ csrf, regenerated: true });
    const fresh = c.jar.get('cs_session')!;
    expect(fresh).not.toBe(old);
    expect(await stored(old)).toBeUndefined();
    expect(JSON.parse((await stored(fresh)).data)).toMatchObject({ csrf, regenerated: true });
    expect((await c.get('/auth/me')).status).toBe(200);
    const replay = new Client(server.url);
    replay.jar.set('cs_session', old);
    expect((await replay.get('/auth/me')).status).toBe(401);
  });

  it('regenerates at sign-in: a planted id is dropped, never adopted', async () => {
    const mallory = await signedIn('max');
    const planted = mallory.jar.get('cs_session')!;
    const victim = new Client(server.url);
    victim.jar.set('cs_session', planted);
    expect((await victim.login('kim', PASSWORD)).status).toBe(200);
    expect(victim.jar.get('cs_session')).not.toBe(planted);
    expect(await stored(planted)).toBeUndefined();
    expect((await mallory.get('/auth/me')).status).toBe(401);
  });
});

describe('koa-session setup is checked at startup', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openDatabase('sqlite');
  });
  afterAll(async () => db?.destroy());

  it('fails clearly when koa-session is missing, installed after the routes, or carries other options', () => {
    const { manager, app } = build(db);
    expect(() => mountRoutes(new Koa(), app.routes, { sessions: [manager] })).toThrow(/not carried by koa-session/);
    koaSessionOptions(manager);
    expect(() => mountRoutes(new Koa(), app.routes, { sessions: [manager] })).toThrow(ConfigurationError);
    expect(() => mountRoutes(new Koa(), app.routes, { sessions: [manager] })).toThrow(
      /koa-session is missing.*createSession\(koaSessionOptions\(manager\), app\)/,
    );

    const other = build(db).manager;
    const wrong = new Koa();
    wrong.use(createSession(koaSessionOptions(other), wrong));
    expect(() => mountRoutes(wrong, app.routes, { sessions: [manager] })).toThrow(/carries other options/);

    const late = new Koa();
    const middleware = createSession(koaSessionOptions(manager), late);
    expect(() => mountRoutes(late, app.routes, { sessions: [manager] })).toThrow(/not installed before the routes/);
    late.use(middleware);

    const right = new Koa();
    right.use(createSession(koaSessionOptions(manager), right));
    expect(() => mountRoutes(right, app.routes, { sessions: [manager] })).not.toThrow();
  });

  it('a carried manager reached without koa-session is a logged 500 naming the fix, never a second way in', async () => {
    const logged: unknown[] = [];
    const { manager, app } = build(db, { error: (_message, error) => logged.push(error) });
    await app.start(db.knex);
    koaSessionOptions(manager);
    const koa = new Koa();
    mountRoutes(koa, app.routes);
    const server = await listen(koa);
    try {
      const res = await fetch(`${server.url}/api/session-data`);
      expect(res.status).toBe(500);
      expect(logged.map(String).join()).toMatch(/carried by koa-session, which did not run before this route/);
    } finally {
      await server.close();
    }
  });
});

// koa-session saves after the routes, outside their error rendering: a save that fails
// unexpectedly is still the JSON 500, reported where mountRoutes reports, with the request's id.
describe('koa-session: a save failing unexpectedly after the routes', () => {
  class BrokenStore extends MemorySessionStore {
    broken = false;
    override async update(idHash: string, changes: SessionChanges): Promise<boolean> {
      if (this.broken) throw new Error('the store has a bug');
      return super.update(idHash, changes);
    }
  }

  it('answers the JSON 500 and reports the error to the logger of mountRoutes, with the request id', async () => {
    const db = await openDatabase('sqlite');
    const store = new BrokenStore();
    const { auth, app, koa } = await koaSessionApp(db, {
      store,
      // The app's own middleware writes to the session once the route answered, and the store fails then.
      after(ctx) {
        if (!ctx.get('x-write-after')) return;
        store.broken = true;
        ctx.session!.theme = 'dark';
      },
    });
    const reported: { error: unknown; context: unknown }[] = [];
    mountRoutes(koa, app.routes, {
      sessions: [auth.sessionManager!],
      logger: { error: (_message, error, context) => void reported.push({ error, context }) },
    });
    const server = await listen(koa);
    try {
      const c = new Client(server.url);
      expect((await c.login('kim', PASSWORD)).status).toBe(200);
      const res = await c.request('GET', '/auth/me', {
        headers: { 'x-write-after': '1', 'x-request-id': 'koa-save-1' },
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: 'Internal server error' });
      expect(reported).toEqual([
        { error: expect.objectContaining({ message: 'the store has a bug' }), context: { requestId: 'koa-save-1' } },
      ]);
    } finally {
      await server.close();
      await app.close();
      await db.destroy();
    }
  });
});
