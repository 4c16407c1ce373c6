import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../plugins/account/fixture';
import { expectValidOpenApi, openApiChecker } from '../plugins/versioning/openapi-check';
import { ADAPTER_ENGINES, ADMIN_PASSWORD, PASSWORD, send, startExample, type ExampleServer } from './example-server';

const USER_READ_V2 = [
  'avatar_url',
  'created_at',
  'email',
  'id',
  'is_verified',
  'name',
  'subscription_tier',
  'username',
];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// /api/v2/users: the paginated list,
// create behind login with accept_terms, UserReadV2 reads; v1 is left as it was.
describe.each(ADAPTER_ENGINES)('example app /api/v2/users on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let ann: Client;
  const client = () => ex.client();
  const newUser = (username: string, extra: Record<string, unknown> = {}) => ({
    name: username.toUpperCase(),
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    accept_terms: true,
    ...extra,
  });

  beforeAll(async () => {
    ex = await startExample(engine, {
      adapter,
      users: ['ann', 'ben'],
      build: { rateLimit: { defaultLimit: 100_000 } },
    });
    ann = await ex.signedIn('ann');
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('POST needs login (401), then 201 with UserReadV2, and the new user signs in at once', async () => {
    expect((await client().request('POST', '/api/v2/users/', { json: newUser('cat') })).status).toBe(401);
    const created = await send(ann, 'POST', '/api/v2/users/', newUser('cat'));
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(USER_READ_V2);
    expect(created.body).toMatchObject({
      name: 'CAT',
      username: 'cat',
      email: 'cat@example.com',
      avatar_url: '/static/avatars/default.svg',
      subscription_tier: null,
      is_verified: false,
      created_at: expect.stringMatching(ISO),
    });
    expect((await client().get(`/api/v2/users/${created.body.id}`)).body).toEqual(created.body);
    await ex.signedIn('cat');
    const avatar = await fetch(`${ex.base}${created.body.avatar_url}`);
    expect(avatar.status).toBe(200);
  });

  it('answers 422 unless accept_terms is present and true, and 409 for a taken e-mail', async () => {
    for (const terms of [undefined, false, 'true', 1]) {
      const res = await send(ann, 'POST', '/api/v2/users/', newUser('dan', { accept_terms: terms }));
      expect(res.status).toBe(422);
      expect(res.body.detail.some((issue: { loc: string[] }) => issue.loc.join('.') === 'body.accept_terms')).toBe(
        true,
      );
    }
    expect(await ex.db.knex('users').where('username', 'dan').first()).toBeUndefined();
    expect((await send(ann, 'POST', '/api/v2/users/', newUser('dan', { email: 'ANN@example.com' }))).status).toBe(409);
    expect((await send(ann, 'POST', '/api/v2/users/', newUser('dan', { is_superuser: true }))).status).toBe(422);
  });

  it('lists the paginated envelope: page 1 and 10 items by default, and the page limits', async () => {
    for (const name of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8', 'u9'])
      expect((await send(ann, 'POST', '/api/v2/users/', newUser(name))).status).toBe(201);
    const total = Number((await ex.db.knex('users').where('is_deleted', false).count({ n: '*' }).first())!.n);
    expect(total).toBeGreaterThan(10);
    const first = await client().get('/api/v2/users/');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'has_more', 'items_per_page', 'page', 'total_count']);
    expect(first.body).toMatchObject({ total_count: total, has_more: true, page: 1, items_per_page: 10 });
    expect(first.body.data).toHaveLength(10);
    for (const user of first.body.data) expect(Object.keys(user).sort()).toEqual(USER_READ_V2);
    expect(JSON.stringify(first.body)).not.toMatch(/hashed_password|\$2[aby]\$|profile_image_url|tier_id/);
    const last = await client().get(`/api/v2/users/?page=2&items_per_page=10`);
    expect(last.body).toMatchObject({ total_count: total, has_more: false, page: 2, items_per_page: 10 });
    expect(last.body.data).toHaveLength(total - 10);
    expect(
      (await client().get('/api/v2/users/?items_per_page=3&page=2')).body.data.map((u: { id: number }) => u.id),
    ).toEqual(first.body.data.slice(3, 6).map((u: { id: number }) => u.id));
    for (const bad of ['page=0', 'items_per_page=0', 'items_per_page=101', 'page=abc', 'page=1e3'])
      expect((await client().get(`/api/v2/users/?${bad}`)).status).toBe(422);
  });

  it('reads one (404 when missing) and /me as UserReadV2, with subscription_tier as the tier name', async () => {
    const tier = await send(ex.admin, 'POST', '/api/v1/tiers', { name: 'pro', description: 'Paid' });
    const id = tier.body.id;
    expect((await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ann}/tier`, { tier_id: id })).status).toBe(200);
    const read = await client().get(`/api/v2/users/${ex.ids.ann}`);
    expect(read.body).toMatchObject({ id: ex.ids.ann, username: 'ann', subscription_tier: 'pro', is_verified: false });
    expect((await ann.get('/api/v2/users/me')).body).toEqual(read.body);
    expect((await client().get('/api/v1/users/' + ex.ids.ann)).body).toMatchObject({
      tier_id: id,
      profile_image_url: '/static/avatars/default.svg',
    });
    expect((await client().get('/api/v2/users/99999')).status).toBe(404);
    expect((await client().get('/api/v2/users/abc')).status).toBe(404);
    expect((await client().get('/api/v2/users/me')).status).toBe(401);
  });

  it('PATCH and DELETE keep v1 rules (401, 403, 404) and answer v2 shapes', async () => {
    const path = `/api/v2/users/${ex.ids.ben}`;
    expect((await client().request('PATCH', path, { json: { name: 'X' } })).status).toBe(401);
    expect((await send(ann, 'PATCH', path, { name: 'X' })).status).toBe(403);
    const ben = await ex.signedIn('ben');
    const updated = await send(ben, 'PATCH', path, { name: 'Benjamin' });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.body).sort()).toEqual(USER_READ_V2);
    expect(updated.body.name).toBe('Benjamin');
    expect((await send(ex.admin, 'PATCH', '/api/v2/users/99999', { name: 'N' })).status).toBe(404);
    expect((await send(ann, 'DELETE', path, undefined)).status).toBe(403);
    expect((await send(ben, 'DELETE', path, undefined)).body).toEqual({ message: expect.any(String) });
    expect((await client().get(path)).status).toBe(404);
  });

  it('leaves a soft-deleted user out of every list and count, with their e-mail still taken', async () => {
    // ben was deleted by the test above.
    const live = Number((await ex.db.knex('users').where('is_deleted', false).count({ n: '*' }).first())!.n);
    const v2 = (await client().get('/api/v2/users/?items_per_page=100')).body;
    expect(v2.total_count).toBe(live);
    expect(v2.data).toHaveLength(live);
    expect(v2.data.map((u: { id: number }) => u.id)).not.toContain(ex.ids.ben);
    expect(
      (await client().get('/api/v1/users/?items_per_page=100')).body.map((u: { id: number }) => u.id),
    ).not.toContain(ex.ids.ben);
    expect((await send(ann, 'PATCH', `/api/v2/users/${ex.ids.ann}`, { email: 'BEN@example.com' })).status).toBe(409);
  });

  it('leaves v1 as it was: an array of UserRead, create without login', async () => {
    const list = await client().get('/api/v1/users/');
    expect(Array.isArray(list.body)).toBe(true);
    expect(Object.keys(list.body[0]).sort()).toEqual([
      'email',
      'id',
      'name',
      'profile_image_url',
      'tier_id',
      'username',
    ]);
    const created = await client().request('POST', '/api/v1/users/', {
      json: { name: 'Eve', username: 'eve', email: 'eve@example.com', password: PASSWORD },
    });
    expect(created.status).toBe(201);
  });

  it('answers what /api/v1 and /api/v2 openapi.json document (Ajv over real answers)', async () => {
    const docs = {
      v1: (await client().get('/api/v1/openapi.json')).body,
      v2: (await client().get('/api/v2/openapi.json')).body,
    };
    for (const doc of Object.values(docs)) await expectValidOpenApi(doc);
    const createBody = docs.v2.paths['/api/v2/users/'].post.requestBody.content['application/json'].schema;
    expect(createBody.required).toEqual(expect.arrayContaining(['accept_terms', 'username', 'email', 'password']));
    const v2 = openApiChecker(docs.v2);
    const created = await send(ann, 'POST', '/api/v2/users/', newUser('doc'));
    v2.check('POST', '/api/v2/users/', created);
    v2.check('POST', '/api/v2/users/', await send(ann, 'POST', '/api/v2/users/', newUser('doc')));
    v2.check(
      'POST',
      '/api/v2/users/',
      await send(ann, 'POST', '/api/v2/users/', newUser('doc2', { accept_terms: false })),
    );
    v2.check('POST', '/api/v2/users/', await client().request('POST', '/api/v2/users/', { json: newUser('doc3') }));
    for (const query of ['', '?page=2&items_per_page=3', '?page=0'])
      v2.check('GET', '/api/v2/users/', await client().get(`/api/v2/users/${query}`));
    for (const id of [created.body.id, 99999])
      v2.check('GET', '/api/v2/users/{user_id}', await client().get(`/api/v2/users/${id}`));
    v2.check('GET', '/api/v2/users/me', await ann.get('/api/v2/users/me'));
    v2.check('GET', '/api/v2/users/me', await client().get('/api/v2/users/me'));
    const doc = await ex.signedIn('doc');
    v2.check(
      'PATCH',
      '/api/v2/users/{user_id}',
      await send(doc, 'PATCH', `/api/v2/users/${created.body.id}`, { name: 'Doc Two' }),
    );
    v2.check(
      'PATCH',
      '/api/v2/users/{user_id}',
      await send(doc, 'PATCH', `/api/v2/users/${created.body.id}`, { email: 'not an e-mail' }),
    );
    v2.check(
      'PATCH',
      '/api/v2/users/{user_id}',
      await send(ann, 'PATCH', `/api/v2/users/${created.body.id}`, { name: 'X' }),
    );
    v2.check(
      'DELETE',
      '/api/v2/users/{user_id}',
      await send(doc, 'DELETE', `/api/v2/users/${created.body.id}`, undefined),
    );
    v2.check(
      'DELETE',
      '/api/v2/users/{user_id}/permanent',
      await send(ex.admin, 'DELETE', `/api/v2/users/${created.body.id}/permanent`, undefined),
    );
    v2.check('POST', '/api/v2/sudo', await send(ex.admin, 'POST', '/api/v2/sudo', { password: 'wrong password' }));
    v2.check('POST', '/api/v2/sudo', await send(ex.admin, 'POST', '/api/v2/sudo', { password: ADMIN_PASSWORD }));
    v2.check(
      'DELETE',
      '/api/v2/users/{user_id}/permanent',
      await send(ex.admin, 'DELETE', `/api/v2/users/${created.body.id}/permanent`, undefined),
    );
    v2.check(
      'DELETE',
      '/api/v2/users/{user_id}/permanent',
      await send(ex.admin, 'DELETE', `/api/v2/users/${created.body.id}/permanent`, undefined),
    );
    expect(v2.checks).toBe(20);

    const v1 = openApiChecker(docs.v1);
    v1.check('GET', '/api/v1/users/', await client().get('/api/v1/users/'));
    v1.check('GET', '/api/v1/users/{user_id}', await client().get(`/api/v1/users/${ex.ids.ann}`));
    v1.check('GET', '/api/v1/users/me', await ann.get('/api/v1/users/me'));
    v1.check(
      'POST',
      '/api/v1/users/',
      await client().request('POST', '/api/v1/users/', {
        json: { name: 'Fay', username: 'fay', email: 'fay@example.com', password: PASSWORD },
      }),
    );
    v1.check(
      'POST',
      '/api/v1/users/',
      await client().request('POST', '/api/v1/users/', {
        json: { name: 'Fay', username: 'fay', email: 'fay@example.com', password: PASSWORD },
      }),
    );
    expect(v1.checks).toBe(5);
  });
});
