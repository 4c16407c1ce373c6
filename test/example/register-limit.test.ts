import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../examples/app/src/server';
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

  it('counts POST /api/v2/users/ in the same budget: an account made there brings no fresh one', async () => {
    expect((await create('10.3.0.1', 'gen1')).status).toBe(201);
    const signedIn = ex.client();
    const token = await signedIn.request('POST', '/auth/token', {
      form: { username: 'gen1', password: 'a perfectly fine passphrase' },
      headers: { 'x-forwarded-for': '10.3.0.1' },
    });
    expect(token.status).toBe(200);
    const createV2 = (name: string) =>
      signedIn.request('POST', '/api/v2/users/', {
        json: {
          name,
          username: name,
          email: `${name}@example.com`,
          password: 'a perfectly fine passphrase',
          accept_terms: true,
        },
        headers: { 'x-forwarded-for': '10.3.0.1', authorization: `Bearer ${token.body.access_token}` },
      });
    expect((await createV2('gen2')).status).toBe(201);
    expect((await createV2('gen3')).status).toBe(201);
    const limited = await createV2('gen4');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await ex.db.knex('users').where({ username: 'gen4' }).first()).toBeUndefined();
    expect((await create('10.3.0.1', 'gen5')).status).toBe(429);
  });

  it('documents the 429 on the operation, in both versions', async () => {
    for (const version of ['v1', 'v2']) {
      const doc = (await ex.client().get(`/api/${version}/openapi.json`)).body as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      expect(Object.keys(doc.paths[`/api/${version}/users/`].post.responses)).toEqual(
        expect.arrayContaining(['201', '409', '422', '429', '503']),
      );
    }
  });
});

// The creation hashes the password as a sign-in does: within the per-address bound of the
// hash pool (429 beyond), not only the overall one, which one address could fill alone.
describe.each(ADAPTERS)('password hashing of POST /api/v1/users/ on %s', (adapter) => {
  let ex: ExampleServer;
  beforeAll(async () => {
    // Cost 10: each hash takes long enough for the burst to overlap.
    ex = await startExample('sqlite', {
      adapter,
      build: { registerRateLimit: 100, bcryptRounds: 10 },
      trustedProxies: ['127.0.0.1'],
    });
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('answers 429 with Retry-After beyond the hashes one address may have in flight, never 503', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ex.client().request('POST', '/api/v1/users/', {
          json: {
            name: `burst${i}`,
            username: `burst${i}`,
            email: `burst${i}@example.com`,
            password: 'a perfectly fine passphrase',
          },
          headers: { 'x-forwarded-for': '10.9.0.1' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length, JSON.stringify(statuses)).toBeGreaterThanOrEqual(1);
    for (const answer of refused) expect(answer.headers.get('retry-after')).toBe('1');
    expect(
      statuses.filter((status) => status !== 201 && status !== 429),
      JSON.stringify(statuses),
    ).toEqual([]);
  });
});
