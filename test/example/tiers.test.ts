import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../plugins/account/fixture';
import { ADAPTER_ENGINES, send, startExample, type ExampleServer } from './example-server';

// The example's tier and rate-limit routes, on each engine:
// writes need a superuser, reads are public, 404/409/422 as the Errors table says.
describe.each(ADAPTER_ENGINES)('example app tiers and rate limits on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let admin: Client;
  let ann: Client;
  let annId: number;
  const client = () => ex.client();

  beforeAll(async () => {
    ex = await startExample(engine, { adapter, users: ['ann'] });
    admin = ex.admin;
    annId = ex.ids.ann;
    ann = await ex.signedIn('ann');
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('migrates tiers before the app, so users.tier_id references tiers', async () => {
    const names = (await ex.db.knex('crudsmith_migrations').orderBy('id').select('name')).map((r) => r.name);
    expect(names.indexOf('rate-limit/0001_tiers_and_rate_limits')).toBe(0);
    expect(names.findIndex((n) => n.startsWith('app/'))).toBeGreaterThan(0);
    // The foreign key: a tier id that does not exist cannot be stored.
    await expect(ex.db.knex('users').where('id', annId).update({ tier_id: 987654 })).rejects.toThrow();
  });

  it('POST /api/v1/tiers: 201 for a superuser, 401/403 for others, 409 duplicate, 422 bad body', async () => {
    const body = { name: 'free', description: 'The free tier' };
    expect((await client().request('POST', '/api/v1/tiers', { json: body })).status).toBe(401);
    expect((await send(ann, 'POST', '/api/v1/tiers', body)).status).toBe(403);
    const created = await send(admin, 'POST', '/api/v1/tiers', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'free',
      description: 'The free tier',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const again = await send(admin, 'POST', '/api/v1/tiers', body);
    expect(again).toMatchObject({ status: 409, body: { detail: "Tier 'free' already exists" } });
    const bad = await send(admin, 'POST', '/api/v1/tiers', { description: 'no name' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'name'] });
    expect((await send(admin, 'POST', '/api/v1/tiers', { name: 'x'.repeat(101) })).status).toBe(422);
  });

  it('GET /api/v1/tiers and /api/v1/tier/{name}: public reads, 404 for an unknown name', async () => {
    await send(admin, 'POST', '/api/v1/tiers', { name: 'pro', description: 'Paid' });
    const list = await client().get('/api/v1/tiers');
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['free', 'pro']);
    const pro = await client().get('/api/v1/tier/pro');
    expect(pro.status).toBe(200);
    expect(pro.body).toEqual(list.body[1]);
    expect(await client().get('/api/v1/tier/gold')).toMatchObject({
      status: 404,
      body: { detail: "Tier 'gold' not found" },
    });
  });

  it('POST /api/v1/tier/{tier_name}/rate_limit stores the path sanitized; 401/403/404/409/422', async () => {
    const body = { name: 'items', path: '/api/v1/items/', limit: 50, period: 60 };
    expect((await client().request('POST', '/api/v1/tier/pro/rate_limit', { json: body })).status).toBe(401);
    expect((await send(ann, 'POST', '/api/v1/tier/pro/rate_limit', body)).status).toBe(403);
    const created = await send(admin, 'POST', '/api/v1/tier/pro/rate_limit', body);
    expect(created.status).toBe(201);
    const pro = (await client().get('/api/v1/tier/pro')).body;
    expect(created.body).toEqual({
      id: expect.any(Number),
      tier_id: pro.id,
      name: 'items',
      path: 'api_v1_items',
      limit: 50,
      period: 60,
    });
    expect((await send(admin, 'POST', '/api/v1/tier/gold/rate_limit', body)).status).toBe(404);
    expect(
      (await send(admin, 'POST', '/api/v1/tier/pro/rate_limit', { ...body, name: 'again', path: 'api/v1/items' }))
        .status,
    ).toBe(409);
    for (const bad of [{ limit: -1 }, { limit: '50' }, { period: 0 }, { path: '/' }, { name: '' }]) {
      expect(
        (await send(admin, 'POST', '/api/v1/tier/pro/rate_limit', { ...body, path: 'api/v1/posts', ...bad })).status,
      ).toBe(422);
    }
    expect((await send(admin, 'POST', '/api/v1/tier/pro/rate_limit', [])).status).toBe(422);
  });

  it("GET /api/v1/tier/{name}/rate_limits lists a tier's limits; 404 for an unknown tier", async () => {
    const list = await client().get('/api/v1/tier/pro/rate_limits');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ name: 'items', path: 'api_v1_items', limit: 50, period: 60 }),
    ]);
    expect((await client().get('/api/v1/tier/free/rate_limits')).body).toEqual([]);
    expect((await client().get('/api/v1/tier/gold/rate_limits')).status).toBe(404);
  });

  it('PUT /api/v1/users/{user_id}/tier: superuser only, answers UserRead; 404 user or tier, 422 bad tier_id', async () => {
    const pro = (await client().get('/api/v1/tier/pro')).body;
    const path = `/api/v1/users/${annId}/tier`;
    expect((await client().request('PUT', path, { json: { tier_id: pro.id } })).status).toBe(401);
    expect((await send(ann, 'PUT', path, { tier_id: pro.id })).status).toBe(403);
    const ok = await send(admin, 'PUT', path, { tier_id: pro.id });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: annId, username: 'ann', tier_id: pro.id });
    expect(Object.keys(ok.body).sort()).toEqual(['email', 'id', 'name', 'profile_image_url', 'tier_id', 'username']);
    expect((await client().get(`/api/v1/users/${annId}`)).body.tier_id).toBe(pro.id);
    expect(await send(admin, 'PUT', '/api/v1/users/99999/tier', { tier_id: pro.id })).toMatchObject({
      status: 404,
      body: { detail: 'User not found' },
    });
    expect(await send(admin, 'PUT', path, { tier_id: 99999 })).toMatchObject({
      status: 404,
      body: { detail: 'Tier not found' },
    });
    for (const bad of [{}, { tier_id: '1' }, { tier_id: 1.5 }, { tier_id: 0 }, { tier_id: 2 ** 31 }])
      expect((await send(admin, 'PUT', path, bad)).status).toBe(422);
    expect((await send(admin, 'PUT', path, { tier_id: null })).body.tier_id).toBeNull();
  });
});
