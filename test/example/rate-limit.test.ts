import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, Client } from '../plugins/account/fixture';
import { ADAPTER_ENGINES, send, startExample, type ExampleServer } from './example-server';

// A window this long does not roll over during the suite, so counts are exact.
const PERIOD = 1_000_000;
const LIMIT = 3;

/** What the headers of a counted answer must say, from the fixed-window arithmetic. */
function expectLimitHeaders(res: Answer, limit: number, remaining: number, policy = 'default'): void {
  const period = PERIOD;
  const now = Math.floor(Date.now() / 1000);
  const reset = now - (now % period) + period;
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(reset);
  expect(res.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${limit};w=${period}`);
  const t = Number(/^"[^"]+";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '')?.[2]);
  expect(res.headers.get('ratelimit')).toBe(`"${policy}";r=${remaining};t=${t}`);
  expect(Math.abs(t - (reset - now))).toBeLessThanOrEqual(1);
}

// The limiter as the example wires it: every route under the limited
// prefixes, keyed on the account plugin's principal (or the client address), with the
// tier's limit once a superuser assigns one.
describe.each(ADAPTER_ENGINES)('example app rate limiting on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let admin: Client;
  const warnings: { message: string; details?: Record<string, unknown> }[] = [];
  const client = () => ex.client();
  const signedIn = (username: string) => ex.signedIn(username);
  // An anonymous caller behind the trusted proxy (the test client), known by X-Forwarded-For.
  const from = (
    address: string,
    path: string,
    init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
  ) =>
    client().request(init.method ?? 'GET', path, {
      json: init.json,
      headers: { 'x-forwarded-for': address, ...init.headers },
    });

  beforeAll(async () => {
    const logger = {
      warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }),
      error: () => {},
    };
    ex = await startExample(engine, {
      adapter,
      build: { rateLimit: { defaultLimit: LIMIT, defaultPeriod: PERIOD, logger } },
      trustedProxies: ['127.0.0.1'],
      users: ['ann', 'ben'],
    });
    admin = ex.admin;
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('counts anonymous requests per client address and answers the (limit+1)th with 429', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const res = await from('10.0.0.1', i === 2 ? '/api/v1/items?page=1' : '/api/v1/items');
      expect(res.status).toBe(200);
      expectLimitHeaders(res, LIMIT, LIMIT - i);
    }
    const limited = await from('10.0.0.1', '/api/v1/items', { headers: { 'user-agent': 'limit-test/1.0' } });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: 'Rate limit exceeded' });
    expect(limited.headers.get('content-type')).toMatch(/application\/json/);
    expectLimitHeaders(limited, LIMIT, 0);
    const now = Math.floor(Date.now() / 1000);
    expect(Math.abs(Number(limited.headers.get('retry-after')) - (PERIOD - (now % PERIOD)))).toBeLessThanOrEqual(1);
    // The violation is logged with user id, path, client address and user agent.
    expect(warnings.at(-1)).toMatchObject({
      message: 'Rate limit exceeded',
      details: { userId: '10.0.0.1', path: '/api/v1/items', clientAddress: '10.0.0.1', userAgent: 'limit-test/1.0' },
    });
    // Another address has a bucket of its own; the method does not count (the key has none).
    expectLimitHeaders(await from('10.0.0.2', '/api/v1/items'), LIMIT, LIMIT - 1);
    expect((await from('10.0.0.1', '/api/v1/items', { method: 'POST', json: { name: 'x' } })).status).toBe(429);
  });

  it('guards every route under a limited prefix, each path counted apart; other routes carry no limit headers', async () => {
    const created = await from('10.0.0.3', '/api/v1/items', { method: 'POST', json: { name: 'Hammer' } });
    expect(created.status).toBe(201);
    expectLimitHeaders(created, LIMIT, LIMIT - 1);
    const one = await from('10.0.0.3', `/api/v1/items/${created.body.id}`);
    expect(one.status).toBe(200);
    expectLimitHeaders(one, LIMIT, LIMIT - 1);
    expectLimitHeaders(
      await from('10.0.0.3', `/api/v1/items/${created.body.id}`, { method: 'PATCH', json: { price: 2 } }),
      LIMIT,
      LIMIT - 2,
    );
    // A 404 under a limited prefix is counted (and says so) like any other answer.
    const missing = await from('10.0.0.3', '/api/v1/items/999999');
    expect(missing.status).toBe(404);
    expectLimitHeaders(missing, LIMIT, LIMIT - 1);
    const users = await client().get('/api/v1/users/');
    expect(users.status).toBe(200);
    expect(users.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await client().get('/api/v1/tiers')).headers.get('ratelimit')).toBeNull();
  });

  it('gives every spelling of an item id one budget: 01, 001 and +1 are item 1', async () => {
    const created = await from('10.0.0.4', '/api/v1/items', { method: 'POST', json: { name: 'Wrench' } });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const spellings = [`0${id}`, `00${id}`, `+${id}`];
    for (let i = 0; i < LIMIT; i++) {
      const res = await from('10.0.0.4', `/api/v1/items/${spellings[i]}`);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(created.body.id);
      expectLimitHeaders(res, LIMIT, LIMIT - 1 - i);
    }
    for (const spelling of [id, `000${id}`, `+0${id}`])
      expect((await from('10.0.0.4', `/api/v1/items/${spelling}`)).status).toBe(429);
    // Spellings that name no item share one bucket too, so they cannot mint budgets either.
    for (let i = 1; i <= LIMIT; i++) expect((await from('10.0.0.5', `/api/v1/items/x${i}`)).status).toBe(422);
    expect((await from('10.0.0.5', '/api/v1/items/1e0')).status).toBe(429);
  });

  it('guards posts and the v2 routes too, each path with its own count', async () => {
    for (const path of ['/api/v1/posts/', '/api/v2/posts/', '/api/v2/items', '/api/v2/users/']) {
      const res = await from('10.0.0.9', path);
      expect(res.status, path).toBe(200);
      expectLimitHeaders(res, LIMIT, LIMIT - 1);
    }
  });

  it('counts a signed-in user on their id, apart from anonymous callers at the same address', async () => {
    const ann = await signedIn('ann');
    const first = await ann.get('/api/v1/items');
    expect(first.status).toBe(200);
    expectLimitHeaders(first, LIMIT, LIMIT - 1);
    // Signed in behind the same address whose anonymous bucket is spent (first test): ann's own bucket.
    const again = await ann.get('/api/v1/items', { 'x-forwarded-for': '10.0.0.1' });
    expectLimitHeaders(again, LIMIT, LIMIT - 2);
    expect((await from('10.0.0.1', '/api/v1/items')).status).toBe(429);
  });

  it("applies a tier's limit to a user from the request after PUT /api/v1/users/{id}/tier", async () => {
    const ben = await signedIn('ben');
    const benId = (await ben.get('/api/v1/users/me')).body.id;
    expectLimitHeaders(await ben.get('/api/v1/items'), LIMIT, LIMIT - 1);

    const tier = await send(admin, 'POST', '/api/v1/tiers', { name: 'gold', description: 'More' });
    expect(tier.status).toBe(201);
    expect(
      (
        await send(admin, 'POST', '/api/v1/tier/gold/rate_limit', {
          name: 'gold items',
          path: '/api/v1/items',
          limit: 6,
          period: PERIOD,
        })
      ).status,
    ).toBe(201);
    // Not yet assigned: still the default.
    expectLimitHeaders(await ben.get('/api/v1/items'), LIMIT, LIMIT - 2);
    expect((await send(admin, 'PUT', `/api/v1/users/${benId}/tier`, { tier_id: tier.body.id })).body.tier_id).toBe(
      tier.body.id,
    );

    // Same window, same key: ben has made 2 requests, now against 6.
    for (let remaining = 3; remaining >= 0; remaining--) {
      const res = await ben.get('/api/v1/items');
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 6, remaining, 'gold items');
    }
    const limited = await ben.get('/api/v1/items');
    expect(limited.status).toBe(429);
    expectLimitHeaders(limited, 6, 0, 'gold items');
    // A path beneath the tier's path takes its limit, counted apart.
    expectLimitHeaders(await ben.get('/api/v1/items/1'), 6, 5, 'gold items');
    // A path the tier does not cover keeps the default.
    expectLimitHeaders(await ben.get('/api/v1/posts/'), LIMIT, LIMIT - 1);
    expect(warnings.at(-1)?.details).toMatchObject({ userId: String(benId), path: '/api/v1/items' });
  });
});
