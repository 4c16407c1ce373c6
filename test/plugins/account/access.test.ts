// Roles and permissions on the principal (cached across requests, invalidated across
// processes), the superuser's role routes, and scoped API keys: Koa, every engine.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import type { ApiKeyEvent } from '@crudsmith/account';
import { expectFits } from './doc-fit';
import { Client, clock, PASSWORD, startAccountApp, type AccountEnv } from './fixture';

const put = (c: Client, path: string, json: unknown) =>
  c.request('PUT', path, { json, headers: { 'x-csrf-token': c.jar.get('cs_csrf') ?? '' } });

for (const engine of ENGINES) {
  describe(`account: roles, permissions and API keys on koa / ${engine}`, () => {
    let env: AccountEnv;
    let other: AccountEnv;
    let boss: Client;
    let bob: Client;
    let bobId: number;
    const events: ApiKeyEvent[] = [];

    beforeAll(async () => {
      env = await startAccountApp(koaHarness, engine, {
        roleRoutes: true,
        apiKeys: true,
        onApiKeyEvent: (event) => void events.push(event),
      });
      // A second process of the same deployment: its own caches, the same database.
      other = await startAccountApp(koaHarness, engine, { roleRoutes: true, apiKeys: true }, env.db);
      await env.user('boss', { superuser: true });
      bobId = await env.user('bob');
      await env.user('eve');
      boss = env.client();
      bob = env.client();
      await boss.login('boss', PASSWORD);
      await bob.login('bob', PASSWORD);
      await env.auth.roles.createRole('viewer', ['notes:read']);
    });
    afterAll(async () => {
      await other?.close();
      await env?.close();
    });
    beforeEach(() => {
      clock.skew = 0;
    });

    it('superuser routes create a role and set roles; the principal carries roles and permissions', async () => {
      expect((await bob.get('/auth/roles')).status).toBe(403);
      const created = await boss.post('/auth/roles', { name: 'editor', permissions: ['notes:update', 'notes:read'] });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ name: 'editor', permissions: ['notes:read', 'notes:update'] });
      expect((await boss.post('/auth/roles', { name: 'editor' })).status).toBe(409);
      expect((await boss.post('/auth/roles', { name: 'bad name!' })).status).toBe(422);
      expect((await put(boss, `/auth/users/${bobId}/roles`, { roles: ['ghost'] })).status).toBe(422);
      expect((await put(boss, '/auth/users/99999/roles', { roles: [] })).status).toBe(404);
      const set = await put(boss, `/auth/users/${bobId}/roles`, { roles: ['editor', 'viewer'] });
      expect(set.body).toEqual({ id: bobId, roles: ['editor', 'viewer'] });
      expect((await boss.get('/auth/roles')).body).toEqual([
        { name: 'editor', permissions: ['notes:read', 'notes:update'] },
        { name: 'viewer', permissions: ['notes:read'] },
      ]);
      expect((await bob.get('/api/principal')).body).toMatchObject({
        id: bobId,
        isSuperuser: false,
        roles: ['editor', 'viewer'],
        permissions: ['notes:read', 'notes:update'],
        transport: 'session',
      });
    });

    it('a change in one process reaches the other within a second, from its cache', async () => {
      const elsewhere = new Client(other.server.url, bob.jar);
      const before = (await elsewhere.get('/api/principal')).body.roles as string[];
      await env.auth.roles.unassign(bobId, 'viewer');
      // This process dropped its cache at once; the other still answers from its own...
      expect((await bob.get('/api/principal')).body.roles).not.toContain('viewer');
      expect((await elsewhere.get('/api/principal')).body.roles).toEqual(before);
      // ...until a second has passed, when it reads the counter and drops it too.
      clock.skew = 1001;
      expect((await elsewhere.get('/api/principal')).body.roles).toEqual(before.filter((r) => r !== 'viewer'));
      await env.auth.roles.assign(bobId, 'viewer');
    });

    it('an API key is answered once, listed without its secret, and works in either header, narrowed to its scopes', async () => {
      const refused = await bob.post('/auth/api-keys', { name: 'ci', scopes: ['notes:delete'] });
      expect(refused.status).toBe(422);
      const made = await bob.post('/auth/api-keys', { name: 'ci', scopes: ['notes:read'], expires_in_days: 30 });
      expect(made.status).toBe(201);
      const { key, id, prefix } = made.body;
      expect(key).toMatch(/^csk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(key.startsWith(`${prefix}_`)).toBe(true);
      const list = await bob.get('/auth/api-keys');
      expect(list.body).toEqual([expect.objectContaining({ id, name: 'ci', prefix, scopes: ['notes:read'] })]);
      const secret = key.slice(prefix.length + 1);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      const stored = await env.db.knex('account_api_keys').where({ id }).first();
      expect(JSON.stringify(stored)).not.toContain(secret);

      const anon = env.client();
      for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }] as Record<string, string>[]) {
        expect((await anon.get('/api/principal', headers)).body).toMatchObject({
          id: bobId,
          roles: ['editor', 'viewer'],
          permissions: ['notes:read'],
          transport: 'api-key',
        });
      }
      // No CSRF for a key; but a key manages no keys (and no account).
      expect((await anon.request('POST', '/api/private', { headers: { 'x-api-key': key } })).status).toBe(200);
      const byKey = await anon.request('POST', '/auth/api-keys', {
        json: { name: 'x', scopes: [] },
        headers: { 'x-api-key': key },
      });
      expect(byKey.status).toBe(403);
      // Another user's key id is not theirs to revoke.
      const eve = env.client();
      await eve.login('eve', PASSWORD);
      expect((await eve.del(`/auth/api-keys/${id}`)).status).toBe(404);
      // An operator's tool (the admin) lists any user's live keys, never their secrets.
      expect(await env.auth.apiKeys!.list(String(bobId))).toEqual([expect.objectContaining({ id, name: 'ci' })]);
      expect(await env.auth.apiKeys!.list('no such user')).toEqual([]);
      expect((await bob.del(`/auth/api-keys/${id}`)).status).toBe(204);
      expect(await env.auth.apiKeys!.revoke(String(bobId), id)).toBeNull();
      expect((await anon.get('/api/private', { 'x-api-key': key })).status).toBe(401);
      expect((await bob.get('/auth/api-keys')).body).toEqual([]);
      // The answers fit the routes' OpenAPI information.
      const docs = new Map(env.auth.router.map((r) => [`${r.method} ${r.path}`, r.doc!]));
      const fits = (route: string, res: { status: number; body: unknown }) =>
        expectFits(docs, route, res, { examples: true });
      fits('POST /auth/api-keys', refused);
      fits('POST /auth/api-keys', made);
      fits('GET /auth/api-keys', list);
      fits('POST /auth/api-keys', byKey);
      fits('DELETE /auth/api-keys/:id', await bob.del(`/auth/api-keys/${id}`));
      fits('GET /auth/roles', await bob.get('/auth/roles'));
      fits('GET /auth/roles', await boss.get('/auth/roles'));
      expect(events.map((e) => [e.type, e.keyId, e.userId])).toEqual([
        ['api_key_created', id, String(bobId)],
        // Used twice above: its first use is one event.
        ['api_key_first_used', id, String(bobId)],
        ['api_key_revoked', id, String(bobId)],
      ]);
      expect(JSON.stringify(events)).not.toContain(secret);
    });

    it("a key is limited apart from its owner's other keys, at its own tier if a superuser set one, else the owner's", async () => {
      expect((await bob.post('/auth/api-keys', { name: 'mine', tier_id: 2 })).body.detail[0]).toMatchObject({
        loc: ['body', 'tier_id'],
        type: 'tier_not_allowed',
      });
      expect((await boss.post('/auth/api-keys', { name: 'x', tier_id: 'gold' })).status).toBe(422);
      await env.db.knex('users').where({ id: bobId }).update({ tier_id: 3 });
      const one = (await bob.post('/auth/api-keys', { name: 'one' })).body;
      const two = (await bob.post('/auth/api-keys', { name: 'two' })).body;
      const own = await boss.post('/auth/api-keys', { name: 'batch', tier_id: 9 });
      expect(own.body).toMatchObject({ tier_id: 9 });
      expect(one).toMatchObject({ tier_id: null });
      const anon = env.client();
      const principal = async (key: string) => (await anon.get('/api/principal', { 'x-api-key': key })).body;
      expect(await principal(one.key)).toMatchObject({ id: bobId, tierId: 3, rateLimitKey: `api-key:${one.id}` });
      expect(await principal(two.key)).toMatchObject({ tierId: 3, rateLimitKey: `api-key:${two.id}` });
      expect(await principal(own.body.key)).toMatchObject({ tierId: 9, rateLimitKey: `api-key:${own.body.id}` });
      // In person, the owner is counted on their id, as before.
      expect((await bob.get('/api/principal')).body).not.toHaveProperty('rateLimitKey');
      await env.db.knex('users').where({ id: bobId }).update({ tier_id: null });
    });

    it('unknown, malformed and expired keys are 401; last use is written at most once a minute', async () => {
      const anon = env.client();
      const { key, id } = (await bob.post('/auth/api-keys', { name: 'short', scopes: [], expires_in_days: 1 })).body;
      const tampered = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
      for (const presented of [tampered, 'csk_nonsense', 'csk_0123456789abcdef_x'])
        expect((await anon.get('/api/private', { 'x-api-key': presented })).status).toBe(401);
      const lastUse = async () =>
        (await env.db.knex('account_api_keys').where({ id }).first('last_used_at')).last_used_at;
      await anon.get('/api/private', { 'x-api-key': key });
      const first = Number(await lastUse());
      expect(first).toBeGreaterThan(0);
      clock.skew = 30_000;
      await anon.get('/api/private', { 'x-api-key': key });
      expect(Number(await lastUse())).toBe(first);
      clock.skew = 61_000;
      await anon.get('/api/private', { 'x-api-key': key });
      expect(Number(await lastUse())).toBeGreaterThan(first);
      clock.skew = 86_400_001;
      expect((await anon.get('/api/private', { 'x-api-key': key })).status).toBe(401);
    });

    it("the owner's password change or deactivation revokes their keys, in every process", async () => {
      const carol = env.client();
      await env.user('carol');
      await carol.login('carol', PASSWORD);
      const { key } = (await carol.post('/auth/api-keys', { name: 'script', scopes: [] })).body;
      const elsewhere = other.client();
      expect((await elsewhere.get('/api/private', { authorization: `Bearer ${key}` })).status).toBe(200);
      const changed = await carol.post('/auth/change-password', {
        current_password: PASSWORD,
        new_password: 'another horse battery staple',
      });
      expect(changed.status).toBe(200);
      expect((await elsewhere.get('/api/private', { authorization: `Bearer ${key}` })).status).toBe(401);
      expect((await carol.get('/auth/api-keys')).body).toEqual([]);
      const fresh = (await carol.post('/auth/api-keys', { name: 'again', scopes: [] })).body.key;
      await env.db.knex('users').where({ username: 'carol' }).update({ is_deleted: true });
      expect((await elsewhere.get('/api/private', { 'x-api-key': fresh })).status).toBe(401);
    });
  });
}

// The key's headers through the other adapters (the rest is adapter-neutral, proven above).
for (const harness of [expressHarness, fastifyHarness]) {
  describe(`account: API key headers on ${harness.name} / ${ENGINES[0]}`, () => {
    let env: AccountEnv;
    afterAll(async () => env?.close());

    it('authenticates by X-API-Key and by Bearer, and refuses a revoked key', async () => {
      env = await startAccountApp(harness, ENGINES[0], { apiKeys: true });
      await env.user('bob');
      const bob = env.client();
      await bob.login('bob', PASSWORD);
      const { key, id } = (await bob.post('/auth/api-keys', { name: 'ci' })).body;
      const anon = env.client();
      expect((await anon.get('/api/principal', { 'x-api-key': key })).body).toMatchObject({ transport: 'api-key' });
      expect((await anon.request('POST', '/api/private', { headers: { authorization: `Bearer ${key}` } })).status).toBe(
        200,
      );
      expect((await bob.del(`/auth/api-keys/${id}`)).status).toBe(204);
      expect((await anon.get('/api/private', { 'x-api-key': key })).status).toBe(401);
    });
  });
}
