import { describe, expect, it } from 'vitest';
import { growth } from '../../fixtures/growth';
import { decide, rateLimitHeaders, rateLimitKey, sanitizePath, windowStart } from '@crudsmith/rate-limit';
// Internal: the path-matching rule the limiter and tier limits share.
import { matchedPath } from '../../../plugins/rate-limit/src/keys';

describe('windowStart(now, period)', () => {
  it('is now minus now mod period', () => {
    expect(windowStart(1_700_000_123, 60)).toBe(1_700_000_100);
    expect(windowStart(1_700_000_123, 3600)).toBe(1_699_999_200);
    expect(windowStart(1_700_000_123, 1)).toBe(1_700_000_123);
  });

  it('puts the boundary second in the new window, the second before it in the old one', () => {
    expect(windowStart(120, 60)).toBe(120);
    expect(windowStart(119, 60)).toBe(60);
    expect(windowStart(0, 60)).toBe(0);
  });

  it('uses whole seconds', () => {
    expect(windowStart(119.999, 60)).toBe(60);
  });
});

describe('decide(count, { limit, period }, now)', () => {
  const policy = { limit: 3, period: 60 };

  it('allows up to the limit and counts down what remains', () => {
    expect(decide(1, policy, 100)).toEqual({ allowed: true, remaining: 2, reset: 120, retryAfter: 0 });
    expect(decide(3, policy, 100)).toEqual({ allowed: true, remaining: 0, reset: 120, retryAfter: 0 });
  });

  it('limits when the count exceeds the limit, until the window ends', () => {
    expect(decide(4, policy, 100)).toEqual({ allowed: false, remaining: 0, reset: 120, retryAfter: 20 });
    expect(decide(50, policy, 119)).toMatchObject({ allowed: false, retryAfter: 1, reset: 120 });
  });

  it('counts from the new window on the boundary second', () => {
    expect(decide(4, policy, 120)).toMatchObject({ allowed: false, reset: 180, retryAfter: 60 });
  });

  it('with limit 0 refuses every request', () => {
    expect(decide(1, { limit: 0, period: 10 }, 5)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 5 });
  });
});

describe('sanitizePath(path)', () => {
  it('strips leading and trailing slashes and turns the others into underscores', () => {
    expect(sanitizePath('/api/v1/items')).toBe('api_v1_items');
    expect(sanitizePath('/api/v1/items/')).toBe('api_v1_items');
    expect(sanitizePath('api/v1/items/5')).toBe('api_v1_items_5');
    expect(sanitizePath('//a//b//')).toBe('a__b');
    expect(sanitizePath('/')).toBe('');
  });

  it('spells every path as the key rule does, the usual spelling and the odd ones alike', () => {
    const rule = (path: string) => path.replace(/^\/+|\/+$/g, '').replace(/\//g, '_');
    for (const path of [
      '',
      '/',
      '//',
      'a',
      '/a',
      'a/',
      '/a/b/c',
      '/a//b',
      '//a/b',
      '/a/b//',
      '/api/v1/items/a b',
      '/é/ü',
    ]) {
      expect(sanitizePath(path), path).toBe(rule(path));
    }
  });
});

describe('rateLimitKey(userId, path, windowStart)', () => {
  it('is ratelimit:{user_id}:{sanitized_path}:{window_start}', () => {
    expect(rateLimitKey(7, 'api_v1_items', 1_699_999_200)).toBe('ratelimit:7:api_v1_items:1699999200');
    expect(rateLimitKey('127.0.0.1', 'api_v1_items_5', 60)).toBe('ratelimit:127.0.0.1:api_v1_items_5:60');
  });
});

describe('matchedPath(req, route)', () => {
  it('puts the decoded parameter values into the route path', () => {
    expect(matchedPath({ path: '/api/v1/items/5', params: { id: '5' } }, { path: '/api/v1/items/:id' })).toEqual({
      path: '/api/v1/items/5',
      pattern: '/api/v1/items/:id',
    });
  });

  it('ignores a trailing slash of the request', () => {
    expect(matchedPath({ path: '/api/v1/items/', params: {} }, { path: '/api/v1/items' }).path).toBe('/api/v1/items');
  });

  it('takes a mount prefix the descriptor does not carry from the request path', () => {
    expect(matchedPath({ path: '/api/v1/items/a b', params: { id: 'a b' } }, { path: '/items/:id' })).toEqual({
      path: '/api/v1/items/a b',
      pattern: '/api/v1/items/:id',
    });
    expect(matchedPath({ path: '/api', params: {} }, { path: '/' }).path).toBe('/api');
  });

  it('puts an integer-spelled value in as its canonical decimal, so no spelling of an id opens a fresh bucket', async () => {
    const route = { path: '/api/v1/items/:id' };
    for (const id of ['1', '01', '001', '+1', '+0001']) {
      expect(matchedPath({ path: `/api/v1/items/${id}`, params: { id } }, route).path).toBe('/api/v1/items/1');
    }
    for (const id of ['0', '-0', '+0', '000'])
      expect(matchedPath({ path: `/items/${id}`, params: { id } }, { path: '/items/:id' }).path).toBe('/items/0');
    expect(matchedPath({ path: '/items/-007', params: { id: '-007' } }, { path: '/items/:id' }).path).toBe('/items/-7');
    // Under a mount prefix the prefix is still found from the spelling as requested.
    expect(
      matchedPath({ path: '/svc/api/v1/items/007/x', params: { id: '007' } }, { path: '/api/v1/items/:id/x' }),
    ).toEqual({
      path: '/svc/api/v1/items/7/x',
      pattern: '/svc/api/v1/items/:id/x',
    });
    // A long run of zeros costs one scan: 64 times the zeros, nowhere near 4096 times the time.
    const zeros = (size: number) => `${'0'.repeat(size)}42`;
    const match = (id: string) => matchedPath({ path: `/items/${id}`, params: { id } }, { path: '/items/:id' }).path;
    expect(match(zeros(100_000))).toBe('/items/42');
    expect(await growth(zeros, match, { small: 1_563, large: 100_000 })).toBeLessThan(1024);
  });

  it('counts a value that is no integer of a documented integer parameter under the parameter name', () => {
    const route = {
      path: '/items/:id',
      doc: { operationId: 'items_read', parameters: [{ name: 'id', in: 'path', schema: { type: 'integer' } }] },
    };
    for (const id of ['1.0', '1e0', '0x1', ' 1', 'abc'])
      expect(matchedPath({ path: `/items/${id}`, params: { id } }, route).path).toBe('/items/:id');
    expect(matchedPath({ path: '/items/01', params: { id: '01' } }, route).path).toBe('/items/1');
    // A text parameter keeps its value.
    expect(matchedPath({ path: '/tags/a.b', params: { name: 'a.b' } }, { path: '/tags/:name' }).path).toBe('/tags/a.b');
  });

  it('falls back to the request path without a route', () => {
    expect(matchedPath({ path: '/x/y/', params: {} }).path).toBe('/x/y');
  });
});

describe('rateLimitHeaders(policy, decision, now)', () => {
  it('gives the X-RateLimit trio and the IETF draft fields', () => {
    const policy = { limit: 10, period: 60, name: 'free items' };
    expect(rateLimitHeaders(policy, decide(4, policy, 100), 100)).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '6',
      'X-RateLimit-Reset': '120',
      'RateLimit-Policy': '"free items";q=10;w=60',
      RateLimit: '"free items";r=6;t=20',
    });
  });

  it('escapes the policy name as a structured-field string', () => {
    const headers = rateLimitHeaders(
      { limit: 1, period: 1, name: 'a"b\\cé' },
      decide(1, { limit: 1, period: 1 }, 0),
      0,
    );
    expect(headers['RateLimit-Policy']).toBe('"a\\"b\\\\c";q=1;w=1');
  });

  it('follows a policy object that changed since its last headers', () => {
    const policy = { limit: 10, period: 60, name: 'gold' };
    expect(rateLimitHeaders(policy, decide(1, policy, 0), 0)['RateLimit-Policy']).toBe('"gold";q=10;w=60');
    Object.assign(policy, { limit: 20, period: 30, name: 'silver' });
    const headers = rateLimitHeaders(policy, decide(1, policy, 0), 0);
    expect(headers['RateLimit-Policy']).toBe('"silver";q=20;w=30');
    expect(headers['X-RateLimit-Limit']).toBe('20');
    expect(headers.RateLimit).toBe('"silver";r=19;t=30');
  });
});
