import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { rateLimitSettings } from '@crudsmith/rate-limit';

describe('rateLimitSettings(env)', () => {
  it('defaults to 100 requests an hour, counted in memory', () => {
    expect(rateLimitSettings({})).toEqual({ defaultLimit: 100, defaultPeriod: 3600 });
  });

  it('reads the rate-limit settings, the KVSTORE_RATE_LIMITER_* Redis first', () => {
    expect(
      rateLimitSettings({
        DEFAULT_RATE_LIMIT_LIMIT: '10',
        DEFAULT_RATE_LIMIT_PERIOD: '60',
        KVSTORE_RATE_LIMITER_HOST: 'redis.internal',
        KVSTORE_RATE_LIMITER_PORT: '6380',
        KVSTORE_RATE_LIMITER_DB: '2',
        REDIS_URL: 'redis://elsewhere:6379/0',
      }),
    ).toEqual({ defaultLimit: 10, defaultPeriod: 60, redis: { host: 'redis.internal', port: 6380, db: 2 } });
    expect(rateLimitSettings({ KVSTORE_RATE_LIMITER_HOST: 'r' }).redis).toEqual({ host: 'r', port: 6379, db: 0 });
  });

  it('falls back to REDIS_URL, with KVSTORE_RATE_LIMITER_DB choosing the database', () => {
    expect(rateLimitSettings({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis).toEqual({ url: 'redis://127.0.0.1:6379' });
    expect(rateLimitSettings({ REDIS_URL: 'redis://127.0.0.1:6379', KVSTORE_RATE_LIMITER_DB: '3' }).redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      db: 3,
    });
  });

  it('counts on a Redis Cluster: KVSTORE_RATE_LIMITER_CLUSTER_NODES first, REDIS_CLUSTER_NODES after the KVSTORE host', () => {
    const nodes = [
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-2', port: 7001 },
    ];
    expect(
      rateLimitSettings({
        KVSTORE_RATE_LIMITER_CLUSTER_NODES: '10.0.0.1:7000, redis-2:7001',
        KVSTORE_RATE_LIMITER_HOST: 'r',
        REDIS_URL: 'redis://x',
      }).redis,
    ).toEqual({ cluster: nodes });
    expect(rateLimitSettings({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,redis-2:7001' }).redis).toEqual({ cluster: nodes });
    expect(rateLimitSettings({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', KVSTORE_RATE_LIMITER_HOST: 'r' }).redis).toEqual({
      host: 'r',
      port: 6379,
      db: 0,
    });
    expect(rateLimitSettings({ REDIS_CLUSTER_NODES: '[::1]:7000' }).redis).toEqual({
      cluster: [{ host: '::1', port: 7000 }],
    });
    for (const env of [
      { REDIS_CLUSTER_NODES: 'no-port' },
      { REDIS_CLUSTER_NODES: 'h:99999' },
      { REDIS_CLUSTER_NODES: ' , ' },
      { KVSTORE_RATE_LIMITER_CLUSTER_NODES: 'h:7000', KVSTORE_RATE_LIMITER_DB: '1' },
    ]) {
      expect(() => rateLimitSettings(env)).toThrow(ConfigurationError);
    }
  });

  it('refuses numbers that are not whole, or out of range, at startup', () => {
    for (const env of [
      { DEFAULT_RATE_LIMIT_LIMIT: '1e3' },
      { DEFAULT_RATE_LIMIT_PERIOD: '0' },
      { DEFAULT_RATE_LIMIT_LIMIT: '-1' },
      { KVSTORE_RATE_LIMITER_HOST: 'r', KVSTORE_RATE_LIMITER_PORT: 'x' },
    ]) {
      expect(() => rateLimitSettings(env)).toThrow(ConfigurationError);
    }
  });
});
