import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, migrationSource, type NeutralRequest } from '@crudsmith/core';
import {
  hashSecret,
  safeEqual,
  KnexSessionStore,
  MemorySessionStore,
  SessionManager,
  sessionMigrations,
  type SessionStore,
} from '@crudsmith/core/auth';
import { createRequest } from '@crudsmith/core/adapter';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

const requestWith = (cookies: Record<string, string> = {}): NeutralRequest =>
  createRequest({
    method: 'GET',
    path: '/',
    query: {},
    headers: {},
    cookies,
    body: undefined,
    clientAddress: '127.0.0.1',
  });

type StoreCase = { name: string; open(): Promise<{ store: SessionStore; db?: TestDatabase }> };

const cases: StoreCase[] = [
  { name: 'memory', open: async () => ({ store: new MemorySessionStore() }) },
  ...ENGINES.map((engine) => ({
    name: `knex on ${engine}`,
    async open() {
      const db = await openDatabase(engine);
      await db.knex.migrate.latest({ migrationSource: migrationSource(sessionMigrations('test_sessions')) });
      return { store: new KnexSessionStore(db.knex, { table: 'test_sessions' }), db };
    },
  })),
];

describe.each(cases)('SessionManager with the $name store', (storeCase) => {
  let store: SessionStore;
  let db: TestDatabase | undefined;
  let clock = 1_700_000_000_000;
  const manager = (options: Partial<ConstructorParameters<typeof SessionManager>[0]> = {}) =>
    new SessionManager({
      store,
      idleTimeoutSeconds: 600,
      absoluteTimeoutSeconds: 3600,
      touchIntervalSeconds: 10,
      now: () => clock,
      ...options,
    });

  beforeAll(async () => {
    ({ store, db } = await storeCase.open());
  });
  afterAll(async () => db?.destroy());

  it('issues a 256-bit random id in an HttpOnly, SameSite=Lax, host-only cookie and stores only its hash', async () => {
    const sessions = manager();
    const { session, cookie } = await sessions.create(1, {
      data: { csrf: 'x' },
      userAgent: 'ua',
      ipAddress: '127.0.0.1',
    });
    expect(cookie).toMatchObject({
      name: 'cs_session',
      httpOnly: true,
      secure: false,
      sameSite: 'lax',
      path: '/',
      maxAge: 3600,
    });
    expect(cookie).not.toHaveProperty('domain');
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(cookie.value, 'base64url')).toHaveLength(32);
    expect(session.idHash).toBe(hashSecret(cookie.value));
    expect(session.handle).not.toBe(cookie.value);
    expect(session.handle).toMatch(/^[A-Za-z0-9_-]{22}$/);
    if (db) {
      const rows = await db.knex('test_sessions').select();
      expect(JSON.stringify(rows)).not.toContain(cookie.value);
    }
    const loaded = await sessions.load(requestWith({ cs_session: cookie.value }));
    expect(loaded).toMatchObject({
      userId: '1',
      handle: session.handle,
      data: { csrf: 'x' },
      userAgent: 'ua',
      ipAddress: '127.0.0.1',
    });
  });

  it('reads nothing from a missing, malformed or unknown cookie', async () => {
    const sessions = manager();
    expect(await sessions.load(requestWith())).toBeNull();
    expect(await sessions.load(requestWith({ cs_session: 'short' }))).toBeNull();
    expect(await sessions.load(requestWith({ cs_session: 'A'.repeat(43) }))).toBeNull();
  });

  it('ends a session after the idle timeout, and a used one at the absolute timeout', async () => {
    const sessions = manager();
    const idle = await sessions.create(2);
    clock += 601_000;
    expect(await sessions.load(requestWith({ cs_session: idle.cookie.value }))).toBeNull();
    expect(await store.get(idle.session.idHash)).toBeNull();

    const busy = await sessions.create(2);
    for (let i = 0; i < 7; i++) {
      clock += 500_000;
      expect(await sessions.load(requestWith({ cs_session: busy.cookie.value }))).not.toBeNull();
    }
    clock += 500_000; // 4000 s after creation: past the absolute 3600 s.
    expect(await sessions.load(requestWith({ cs_session: busy.cookie.value }))).toBeNull();
  });

  it('writes last use at most once per touch interval, and never revives a revoked session', async () => {
    const sessions = manager();
    const { cookie, session } = await sessions.create(3);
    clock += 5_000;
    expect((await sessions.load(requestWith({ cs_session: cookie.value })))?.lastSeenAt.getTime()).toBe(
      session.lastSeenAt.getTime(),
    );
    clock += 6_000;
    const touched = await sessions.load(requestWith({ cs_session: cookie.value }));
    expect(touched?.lastSeenAt.getTime()).toBe(clock);

    // A request in flight holds the session while another revokes it.
    const inFlight = touched!;
    await sessions.revoke(inFlight);
    inFlight.data.late = true;
    expect(await sessions.save(inFlight)).toBe(false);
    expect(await store.get(inFlight.idHash)).toBeNull();
    clock += 20_000;
    expect(await sessions.load(requestWith({ cs_session: cookie.value }))).toBeNull();
    expect(await store.get(inFlight.idHash)).toBeNull();
  });

  it('regenerates to a new id: the old one dies, user and data carry over', async () => {
    const sessions = manager();
    const first = await sessions.create(4, { data: { a: 1 } });
    const second = await sessions.regenerate(first.session);
    expect(second?.cookie.value).not.toBe(first.cookie.value);
    expect(await sessions.load(requestWith({ cs_session: first.cookie.value }))).toBeNull();
    expect(await sessions.load(requestWith({ cs_session: second!.cookie.value }))).toMatchObject({
      userId: '4',
      data: { a: 1 },
    });
    expect(await sessions.regenerate(first.session)).toBeNull();
  });

  it('replaces the session presented at sign-in (no fixation)', async () => {
    const sessions = manager();
    const planted = await sessions.create('attacker');
    const signedIn = await sessions.create(5, { replaces: planted.session });
    expect(await sessions.load(requestWith({ cs_session: planted.cookie.value }))).toBeNull();
    expect(await sessions.load(requestWith({ cs_session: signedIn.cookie.value }))).toMatchObject({ userId: '5' });
  });

  it('lists, revokes by handle (owner only) and revokes all but the kept one', async () => {
    const sessions = manager();
    const a = await sessions.create(6);
    clock += 1;
    const b = await sessions.create(6);
    clock += 1;
    const c = await sessions.create(6);
    const other = await sessions.create(7);
    expect((await sessions.list(6)).map((s) => s.handle)).toEqual([a, b, c].map((x) => x.session.handle));
    expect(await sessions.revokeByHandle(6, other.session.handle)).toBe(false);
    expect(await sessions.revokeByHandle(6, 'nope')).toBe(false);
    expect(await sessions.revokeByHandle(6, a.session.handle)).toBe(true);
    expect(await sessions.revokeAll(6, { keep: c.session })).toBe(1);
    expect((await sessions.list(6)).map((s) => s.handle)).toEqual([c.session.handle]);
    expect(await sessions.load(requestWith({ cs_session: other.cookie.value }))).not.toBeNull();
    expect(await sessions.revokeAll(6)).toBe(1);
  });

  it('caps sessions per user by evicting the least recently used', async () => {
    const sessions = manager({ maxSessionsPerUser: 3 });
    const issued = [];
    for (let i = 0; i < 3; i++) {
      issued.push(await sessions.create(8));
      clock += 11_000;
    }
    await sessions.load(requestWith({ cs_session: issued[0].cookie.value })); // the oldest is now the most recently used
    const fourth = await sessions.create(8);
    const live = (await sessions.list(8)).map((s) => s.handle).sort();
    expect(live).toEqual([issued[0], issued[2], fourth].map((x) => x.session.handle).sort());
  });

  it('prunes expired sessions', async () => {
    const sessions = manager();
    await sessions.create(9);
    clock += 4_000_000;
    expect(await sessions.prune()).toBeGreaterThanOrEqual(1);
    expect(await store.listByUser('9')).toEqual([]);
  });

  it('names its cookie after the manager, __Host- prefixed when secure', () => {
    expect(manager({ name: 'admin' }).cookieName).toBe('cs_admin');
    expect(manager({ secure: true }).cookieName).toBe('__Host-cs_session');
    expect(manager().clearCookie()).toMatchObject({
      name: 'cs_session',
      value: '',
      maxAge: 0,
      path: '/',
      httpOnly: true,
    });
    expect(() => manager({ cookieName: '__Host-x' })).toThrow(ConfigurationError);
    expect(() => manager({ idleTimeoutSeconds: 0 })).toThrow(ConfigurationError);
  });

  it('limits its cookie to cookiePath, __Secure- prefixed when secure there (__Host- needs the path /)', async () => {
    const admin = manager({ name: 'admin', cookiePath: '/admin', secure: true });
    expect(admin.cookieName).toBe('__Secure-cs_admin');
    expect((await admin.create(1)).cookie).toMatchObject({ path: '/admin', secure: true, httpOnly: true });
    expect(admin.clearCookie()).toMatchObject({ path: '/admin', maxAge: 0 });
    expect(() => manager({ cookieName: '__Host-x', secure: true, cookiePath: '/admin' })).toThrow(ConfigurationError);
  });
});

describe('safeEqual', () => {
  it('compares contents, whatever the lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});
