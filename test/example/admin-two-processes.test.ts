// Two example-app processes sharing one PostgreSQL database: /admin behaves as one. A is
// Koa (koa-session carries the account sessions beside the admin's own cookie), B is
// Express. An admin session made on A works on B and ends on both at sign-out; a lockout
// earned on A holds on B. The first admin user comes from ADMIN_USERNAME / ADMIN_PASSWORD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/admin/fixture';
import { startTwoApps, stopTwoApps, type AppProcess } from './spawn-app';

const ADMIN = { username: 'chief', password: 'chief admin passphrase' };

const suite = ENGINES.includes('postgres') ? describe : describe.skip;

suite('example /admin in two processes sharing PostgreSQL', () => {
  let db: TestDatabase;
  let a: AppProcess;
  let b: AppProcess;

  beforeAll(async () => {
    ({ db, a, b } = await startTwoApps((url) => ({
      DATABASE_URL: url,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    })));
  }, 150_000);
  afterAll(() => stopTwoApps({ db, a, b }));

  it('creates the first admin user once, from ADMIN_USERNAME / ADMIN_PASSWORD', async () => {
    expect((await db.knex('admin_users').select('username')).map((r) => r.username)).toEqual([ADMIN.username]);
    expect(a.output()).toContain(`Created the admin user ${ADMIN.username} for /admin`);
    expect(b.output()).not.toContain('Created the admin user');
  });

  it('an admin session made on A works on B, and a sign-out on B ends it on A', async () => {
    const onA = new Client(a.url);
    const onB = new Client(b.url, onA.jar);
    expect((await onA.login(ADMIN.username, ADMIN.password)).status).toBe(303);
    expect((await onB.get('/admin/')).status).toBe(200);
    expect((await onB.postForm('/admin/items/form_create', { name: 'made on B' })).status).toBe(303);
    const cookie = onA.jar.get('cs_admin')!;
    expect((await onB.get('/admin/logout')).status).toBe(303);
    const replay = new Client(a.url);
    replay.jar.set('cs_admin', cookie);
    expect((await replay.get('/admin/')).status).toBe(303);
  });

  it('a lockout earned on A holds on B', async () => {
    for (let i = 0; i < 5; i++)
      expect((await new Client(a.url).login(ADMIN.username, 'not the passphrase')).status).toBe(401);
    const locked = await new Client(b.url).login(ADMIN.username, ADMIN.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
