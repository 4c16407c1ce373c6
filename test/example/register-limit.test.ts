import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_ENGINES, startExample, type ExampleServer } from './example-server';

const LIMIT = 3;

// POST /api/v1/users/ creates accounts anonymously, as /auth/register does, so it has the
// same per-address limit (REGISTER_RATE_LIMIT an hour).
describe.each(ADAPTER_ENGINES)('account creation through POST /api/v1/users/ on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  const create = (address: string, name: string, body: Record<string, unknown> = {}) =>
    ex.client().request('POST', '/api/v1/users/', {
      json: { name, username: name, email: `${name}@example.com`, password: 'a perfectly fine passphrase', ...body },
      headers: { 'x-forwarded-for': address },
    });

  beforeAll(async () => {
    ex = await startExample(engine, { adapter, build: { registerRateLimit: LIMIT }, trustedProxies: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('answers 429 with Retry-After past the limit per client address, refused bodies counted too', async () => {
    expect((await create('10.1.0.1', 'reg1')).status).toBe(201);
    expect((await create('10.1.0.1', 'reg2', { email: 'not an e-mail' })).status).toBe(422);
    expect((await create('10.1.0.1', 'reg3')).status).toBe(201);
    const limited = await create('10.1.0.1', 'reg4');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: 'Too many registrations from this address; try again later' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await ex.db.knex('users').where({ username: 'reg4' }).first()).toBeUndefined();
    // Another address has its own budget.
    expect((await create('10.1.0.2', 'reg5')).status).toBe(201);
    expect((await create('10.1.0.1', 'reg6')).status).toBe(429);
  });

  it('documents the 429 on the operation', async () => {
    const doc = (await ex.client().get('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/api/v1/users/'].post.responses)).toEqual(expect.arrayContaining(['201', '409', '422', '429', '503']));
  });
});
