import type { Cluster, Redis } from 'ioredis';
import { ServiceUnavailableError } from '@crudsmith/core';

/** What the Redis stores take: one Redis, or a Redis Cluster (keys are laid out so no command spans two slots). */
export type RedisClient = Redis | Cluster;

// While ioredis reconnects, a command would wait in its offline queue (or fail only after
// its retries): a request answers 503 at once instead.
const DOWN = new Set(['reconnecting', 'close', 'end']);

/**
 * Runs one store operation on `redis` so that it never holds a request: at once while the
 * client reconnects, within `timeoutMs` otherwise; any Redis failure becomes a
 * ServiceUnavailableError (503, `Retry-After: 1`) saying which store (`detail`) is away.
 */
export async function boundedRedis<T>(
  redis: RedisClient,
  timeoutMs: number,
  detail: string,
  operation: () => Promise<T>,
): Promise<T> {
  const unavailable = (why: string, cause?: unknown) =>
    new ServiceUnavailableError(detail, { retryAfter: 1, cause: cause ?? new Error(why) });
  if (DOWN.has(redis.status)) throw unavailable(`Redis is ${redis.status}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const run = operation();
  // A late failure after the timeout has nobody waiting for it.
  run.catch(() => {});
  try {
    return await Promise.race([run, timeout]);
  } catch (error) {
    throw error instanceof ServiceUnavailableError ? error : unavailable('Redis failed', error);
  } finally {
    clearTimeout(timer);
  }
}

/** A store operation timeout, checked once: a positive number of milliseconds. */
export function commandTimeout(value: number | undefined, fallback = 1000): number {
  const ms = value ?? fallback;
  if (!(ms > 0)) throw new RangeError(`commandTimeoutMs must be positive, got ${ms}`);
  return ms;
}
