import { ConfigurationError } from '@crudsmith/core';

/** Where the limiter's Redis is: a URL, or host, port and database. */
export type RedisConnection = { url: string; db?: number } | { host: string; port: number; db: number };

/** The rate-limit settings, read from the environment. */
export interface RateLimitSettings {
  defaultLimit: number;
  defaultPeriod: number;
  /** Absent: counters stay in memory (one process only). */
  redis?: RedisConnection;
}

/**
 * Reads `DEFAULT_RATE_LIMIT_LIMIT` (100), `DEFAULT_RATE_LIMIT_PERIOD` (3600 s), and the
 * Redis for counters: `KVSTORE_RATE_LIMITER_HOST` (+ `_PORT` 6379, `_DB` 0) when set,
 * else `REDIS_URL` (with `KVSTORE_RATE_LIMITER_DB` choosing the database if set; best
 * one apart from cache and queue). A bad number throws at startup.
 */
export function rateLimitSettings(env: Record<string, string | undefined> = process.env): RateLimitSettings {
  const settings: RateLimitSettings = {
    defaultLimit: integer(env, 'DEFAULT_RATE_LIMIT_LIMIT', 100, 0),
    defaultPeriod: integer(env, 'DEFAULT_RATE_LIMIT_PERIOD', 3600, 1),
  };
  const db = env.KVSTORE_RATE_LIMITER_DB ? integer(env, 'KVSTORE_RATE_LIMITER_DB', 0, 0) : undefined;
  if (env.KVSTORE_RATE_LIMITER_HOST) {
    settings.redis = { host: env.KVSTORE_RATE_LIMITER_HOST, port: integer(env, 'KVSTORE_RATE_LIMITER_PORT', 6379, 1), db: db ?? 0 };
  } else if (env.REDIS_URL) {
    settings.redis = db === undefined ? { url: env.REDIS_URL } : { url: env.REDIS_URL, db };
  }
  return settings;
}

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(`${name} must be an integer of at least ${min}, got "${raw}"`);
  }
  return value;
}
