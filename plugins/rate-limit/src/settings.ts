import { ConfigurationError } from '@crudsmith/core';

/** Where the limiter's Redis is: a URL, host, port and database, or the nodes of a Redis Cluster. */
export type RedisConnection =
  | { url: string; db?: number }
  | { host: string; port: number; db: number }
  | { cluster: { host: string; port: number }[] };

/** The rate-limit settings, read from the environment. */
export interface RateLimitSettings {
  defaultLimit: number;
  defaultPeriod: number;
  /** Absent: counters stay in memory (one process only). */
  redis?: RedisConnection;
}

/**
 * Reads `DEFAULT_RATE_LIMIT_LIMIT` (100), `DEFAULT_RATE_LIMIT_PERIOD` (3600 s), and the
 * Redis for counters: a Redis Cluster from `KVSTORE_RATE_LIMITER_CLUSTER_NODES`
 * (`host:port,host:port,...`) when set, else `KVSTORE_RATE_LIMITER_HOST` (+ `_PORT` 6379,
 * `_DB` 0), else the cluster of `REDIS_CLUSTER_NODES`, else `REDIS_URL` (with
 * `KVSTORE_RATE_LIMITER_DB` choosing the database if set; best one apart from cache and
 * queue). A bad number or node list throws at startup; a cluster has no databases, so
 * `KVSTORE_RATE_LIMITER_DB` with one is refused too.
 */
export function rateLimitSettings(env: Record<string, string | undefined> = process.env): RateLimitSettings {
  const settings: RateLimitSettings = {
    defaultLimit: integer(env, 'DEFAULT_RATE_LIMIT_LIMIT', 100, 0),
    defaultPeriod: integer(env, 'DEFAULT_RATE_LIMIT_PERIOD', 3600, 1),
  };
  const db = env.KVSTORE_RATE_LIMITER_DB ? integer(env, 'KVSTORE_RATE_LIMITER_DB', 0, 0) : undefined;
  const clusterSetting = env.KVSTORE_RATE_LIMITER_CLUSTER_NODES
    ? 'KVSTORE_RATE_LIMITER_CLUSTER_NODES'
    : !env.KVSTORE_RATE_LIMITER_HOST && env.REDIS_CLUSTER_NODES
      ? 'REDIS_CLUSTER_NODES'
      : undefined;
  if (clusterSetting) {
    if (db !== undefined)
      throw new ConfigurationError(
        `KVSTORE_RATE_LIMITER_DB cannot be used with ${clusterSetting}: a Redis Cluster has only database 0`,
      );
    settings.redis = { cluster: clusterNodes(env[clusterSetting]!, clusterSetting) };
  } else if (env.KVSTORE_RATE_LIMITER_HOST) {
    settings.redis = {
      host: env.KVSTORE_RATE_LIMITER_HOST,
      port: integer(env, 'KVSTORE_RATE_LIMITER_PORT', 6379, 1),
      db: db ?? 0,
    };
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

/** Parses `host:port,host:port,...` (REDIS_CLUSTER_NODES and the like); `setting` names it in the error. */
export function clusterNodes(value: string, setting: string): { host: string; port: number }[] {
  const nodes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((node) => {
      const colon = node.lastIndexOf(':');
      const host = node.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
      const port = Number(node.slice(colon + 1));
      if (colon < 1 || !Number.isInteger(port) || port < 1 || port > 65535)
        throw new ConfigurationError(`${setting}: "${node}" is not host:port`);
      return { host, port };
    });
  if (nodes.length === 0) throw new ConfigurationError(`${setting} names no node; use host:port,host:port,...`);
  return nodes;
}
