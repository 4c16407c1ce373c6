import { Redis } from 'ioredis';
import type { SessionStore } from '@crudsmith/core/session';
import { RedisSessionStore } from '@crudsmith/account/redis';

/** Sessions in Redis when REDIS_URL is set; undefined means the database. */
export function openSessionStore(redisUrl: string | undefined, prefix?: string): { store: SessionStore; ping(): Promise<unknown>; close(): Promise<void> } | undefined {
  if (!redisUrl) return undefined;
  const redis = new Redis(redisUrl);
  return { store: new RedisSessionStore(redis, { prefix }), ping: () => redis.ping(), close: async () => void (await redis.quit()) };
}
