import { describe, expect, it } from 'vitest';
import * as rateLimit from '@crudsmith/rate-limit';

// The public surface is a contract (STYLE rule 12).
describe('@crudsmith/rate-limit exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(rateLimit).sort()).toEqual([
      'MemoryStore', 'RateLimit', 'RedisInvalidation', 'RedisStore', 'StoreUnavailableError', 'Tier', 'TierCache', 'TierService',
      'createRedisClient', 'decide', 'loadRateLimits', 'matchedPath', 'rateLimit', 'rateLimitHeaders', 'rateLimitKey',
      'rateLimitMigrations', 'rateLimitSettings', 'rateLimitStateOf', 'sanitizePath', 'windowStart',
    ].sort());
  });
});
