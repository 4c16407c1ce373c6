import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createKoaApp, type ExampleApp } from '../../examples/app/src/app';
import { ensureFirstSuperuser } from '../../examples/app/src/first-superuser';
import { secretKeyProvider } from '../../examples/app/src/secret-key';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';

const USER_READ = ['email', 'id', 'name', 'profile_image_url', 'tier_id', 'username'];
const PASSWORD = 'a perfectly fine passphrase';

// The example's /auth and /api/v1/users, on each engine.
describe.each(ENGINES)('example app /auth and /api/v1/users on %s', (engine) => {
  let db: TestDatabase;
  let app: ExampleApp;
  let server: Server;
  let base: string;
  const client = () => new Client(base);
  const signedIn = async (username: string, password = PASSWORD) => {
    const c = client();
    expect((await c.login(username, password)).status).toBe(200);
    return c;
  };
  const create = (c: Client, body: Record<string, unknown>) => c.request('POST', '/api/v1/users/', { json: body });

  beforeAll(async () => {
    db = await openDatabase(engine);
    app = buildApp(db.knex, { secretKey: 'example-test-secret-0123456789abcdefghij', bcryptRounds: 4 });
    await app.start(db.knex);
    const logged: string[] = [];
    await ensureFirstSuperuser(
      db.knex,
      app.auth,
      { username: 'admin', email: 'admin@example.com', password: 'the admin passphrase' },
      (l) => logged.push(l),
    );
    expect(logged.join()).not.toContain('the admin passphrase');
    server = createKoaApp(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const name of ['ann', 'ben'])
      expect(
        (
          await create(client(), {
            name: name.toUpperCase(),
            username: name,
            email: `${name}@example.com`,
            password: PASSWORD,
          })
        ).status,
      ).toBe(201);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
    await db?.destroy();
  });

  it('serves its Koa app with koa-session carrying the account sessions', async () => {
    expect(app.auth.sessionManager!.carrier).toBe('koa-session');
    expect(createKoaApp(app).middleware[0].name).toBe('session');
    const c = await signedIn('ann');
    expect((await c.get('/auth/me')).body).toMatchObject({ transport: 'session' });
  });

  it('POST /api/v1/users/ creates (201, UserRead only) and the user signs in at once', async () => {
    const res = await create(client(), { name: 'Cat', username: 'cat', email: 'cat@example.com', password: PASSWORD });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(USER_READ);
    expect(res.body).toMatchObject({
      name: 'Cat',
      username: 'cat',
      email: 'cat@example.com',
      profile_image_url: '/static/avatars/default.svg',
      tier_id: null,
    });
    await signedIn('cat');
    const avatar = await fetch(`${base}${res.body.profile_image_url}`);
    expect(avatar.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  });

  it('answers 409 for an existing e-mail or username, 422 for a bad body or a weak password', async () => {
    expect(
      (await create(client(), { name: 'Dup', username: 'dup', email: 'ANN@example.com', password: PASSWORD })).status,
    ).toBe(409);
    expect(
      (await create(client(), { name: 'Dup', username: 'ann', email: 'dup@example.com', password: PASSWORD })).status,
    ).toBe(409);
    expect(
      (await create(client(), { name: 'Dup', username: 'dup', email: 'not-an-email', password: PASSWORD })).status,
    ).toBe(422);
    expect(
      (await create(client(), { name: 'Dup', username: 'dup', email: 'dup@example.com', password: 'password' })).status,
    ).toBe(422);
    expect(
      (
        await create(client(), {
          name: 'Dup',
          username: 'dup',
          email: 'dup@example.com',
          password: PASSWORD,
          is_superuser: true,
        })
      ).status,
    ).toBe(422);
  });

  it('GET /api/v1/users/ answers an array of UserRead, paged', async () => {
    const res = await client().get('/api/v1/users/');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    for (const user of res.body) expect(Object.keys(user).sort()).toEqual(USER_READ);
    expect(JSON.stringify(res.body)).not.toMatch(/hashed_password|\$2[aby]\$/);
    expect((await client().get('/api/v1/users/?page=1&items_per_page=1')).body).toHaveLength(1);
    expect((await client().get('/api/v1/users/?items_per_page=101')).status).toBe(422);
    expect((await client().get('/api/v1/users/?page=0')).status).toBe(422);
  });

  it('GET /api/v1/users/{user_id} answers the user, 404 when missing', async () => {
    const ann = (await client().get('/api/v1/users/')).body.find((u: { username: string }) => u.username === 'ann');
    expect((await client().get(`/api/v1/users/${ann.id}`)).body).toEqual(ann);
    expect((await client().get('/api/v1/users/99999')).status).toBe(404);
    expect((await client().get('/api/v1/users/abc')).status).toBe(404);
  });

  it('GET /api/v1/users/me takes a session cookie or a bearer token, 401 otherwise', async () => {
    expect((await client().get('/api/v1/users/me')).status).toBe(401);
    expect((await (await signedIn('ann')).get('/api/v1/users/me')).body.username).toBe('ann');
    const token = await client().request('POST', '/auth/token', { form: { username: 'ann', password: PASSWORD } });
    expect(token.body).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) });
    const me = await client().get('/api/v1/users/me', { authorization: `Bearer ${token.body.access_token}` });
    expect(me.body.username).toBe('ann');
    expect(
      (await client().get('/auth/me', { authorization: `Bearer ${token.body.access_token}` })).body.transport,
    ).toBe('bearer');
  });

  it('PATCH needs that user or a superuser: 401, 403, 404, 409, CSRF, then 200 with UserRead', async () => {
    const ann = (await client().get('/api/v1/users/')).body.find((u: { username: string }) => u.username === 'ann');
    const path = `/api/v1/users/${ann.id}`;
    expect((await client().request('PATCH', path, { json: { name: 'X' } })).status).toBe(401);
    const ben = await signedIn('ben');
    expect(
      (await ben.request('PATCH', path, { json: { name: 'X' }, headers: { 'x-csrf-token': ben.jar.get('cs_csrf')! } }))
        .status,
    ).toBe(403);
    const self = await signedIn('ann');
    expect((await self.request('PATCH', path, { json: { name: 'Ann B' } })).status).toBe(403); // no CSRF header
    const csrf = { 'x-csrf-token': self.jar.get('cs_csrf')! };
    expect((await self.request('PATCH', path, { json: { email: 'BEN@example.com' }, headers: csrf })).status).toBe(409);
    expect((await self.request('PATCH', path, { json: { password: 'sneaky new one' }, headers: csrf })).status).toBe(
      422,
    );
    const ok = await self.request('PATCH', path, { json: { name: 'Ann B' }, headers: csrf });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: ann.id, name: 'Ann B', username: 'ann' });
    expect(Object.keys(ok.body).sort()).toEqual(USER_READ);
    const admin = await signedIn('admin', 'the admin passphrase');
    const adminCsrf = { 'x-csrf-token': admin.jar.get('cs_csrf')! };
    expect((await admin.request('PATCH', path, { json: { name: 'By Admin' }, headers: adminCsrf })).body.name).toBe(
      'By Admin',
    );
    expect(
      (await admin.request('PATCH', '/api/v1/users/99999', { json: { name: 'N' }, headers: adminCsrf })).status,
    ).toBe(404);
  });

  it('DELETE soft-deletes ({message}), signs the user out everywhere; permanent needs a superuser', async () => {
    await create(client(), { name: 'Dee', username: 'dee', email: 'dee@example.com', password: PASSWORD });
    const dee = await signedIn('dee');
    const id = (await dee.get('/api/v1/users/me')).body.id;
    const token = (await client().request('POST', '/auth/token', { form: { username: 'dee', password: PASSWORD } }))
      .body;
    const other = await signedIn('ben');
    expect((await other.del(`/api/v1/users/${id}`)).status).toBe(403);
    expect((await other.del(`/api/v1/users/${id}/permanent`)).status).toBe(403);

    const res = await dee.del(`/api/v1/users/${id}`);
    expect(res).toMatchObject({ status: 200, body: { message: expect.any(String) } });
    expect((await client().get(`/api/v1/users/${id}`)).status).toBe(404);
    expect((await dee.get('/api/v1/users/me')).status).toBe(401);
    expect((await client().get('/auth/me', { authorization: `Bearer ${token.access_token}` })).status).toBe(401);
    expect(
      (await client().request('POST', '/auth/refresh', { json: { refresh_token: token.refresh_token } })).status,
    ).toBe(401);
    expect((await client().login('dee', PASSWORD)).status).toBe(401);

    const admin = await signedIn('admin', 'the admin passphrase');
    // Sensitive: 403 until the superuser confirms the password at /sudo.
    expect((await admin.del(`/api/v1/users/${id}/permanent`)).status).toBe(403);
    expect((await admin.post('/api/v1/sudo', { password: 'the admin passphrase' })).status).toBe(200);
    expect((await admin.del(`/api/v1/users/${id}/permanent`)).body).toEqual({ message: expect.any(String) });
    expect(await db.knex('users').where('id', id).first()).toBeUndefined();
    expect((await admin.del(`/api/v1/users/${id}/permanent`)).status).toBe(404);
  });

  it('mounts the account router at /auth with management routes', async () => {
    const c = await signedIn('ben');
    expect((await c.get('/auth/sessions')).status).toBe(200);
    expect((await c.post('/auth/csrf/refresh')).status).toBe(200);
  });
});

describe('example app: first superuser and SECRET_KEY', () => {
  it('creates the first superuser once, printing a random password when none is given', async () => {
    const db = await openDatabase('sqlite');
    const app = buildApp(db.knex, { secretKey: 'example-test-secret-0123456789abcdefghij', bcryptRounds: 4 });
    await app.start(db.knex);
    const lines: string[] = [];
    await ensureFirstSuperuser(db.knex, app.auth, { username: 'root', email: 'root@example.com' }, (l) =>
      lines.push(l),
    );
    const password = /password (\S+) /.exec(lines[0])![1];
    await ensureFirstSuperuser(db.knex, app.auth, { username: 'root', email: 'root@example.com' }, (l) =>
      lines.push(l),
    );
    expect(lines).toHaveLength(1);
    const row = await db.knex('users').where('username', 'root').first();
    expect(Boolean(row.is_superuser)).toBe(true);
    expect(row.hashed_password).not.toContain(password);
    await app.close();
    await db.destroy();
  });

  it('generates SECRET_KEY once and keeps it under DATA_DIR, or in the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-secret-'));
    const db = await openDatabase('sqlite');
    try {
      const warnings: string[] = [];
      const fromFile = secretKeyProvider({ dataDir: dir }, db.knex, (l) => warnings.push(l));
      const first = await fromFile();
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(await secretKeyProvider({ dataDir: dir }, db.knex, () => {})()).toBe(first);
      expect(readFileSync(join(dir, 'secret_key'), 'utf8')).toBe(first);
      expect(warnings[0]).toMatch(/SECRET_KEY/);

      const app = buildApp(db.knex, { bcryptRounds: 4, dataDir: dir });
      await app.start(db.knex);
      const fromDb = secretKeyProvider({ databaseUrl: 'postgres://x', dataDir: dir }, db.knex, () => {});
      const stored = await fromDb();
      expect(await fromDb()).toBe(stored);
      expect(stored).not.toBe(first);
      expect(await secretKeyProvider({ secretKey: 'given', dataDir: dir }, db.knex)()).toBe('given');
      await app.close();
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
