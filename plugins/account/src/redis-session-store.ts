import type { Redis } from 'ioredis';
import type { SessionChanges, SessionRecord, SessionStore } from '@crudsmith/core/session';
import { boundedRedis, commandTimeout } from './bounded-redis';

/** Options of the Redis session store. */
export interface RedisSessionStoreOptions {
  /** Prefix of every key (default `cs:session:`). */
  prefix?: string;
  /** Longest wait for one store operation before the request answers 503, in ms (default 1000). */
  commandTimeoutMs?: number;
}

/**
 * Sessions in Redis, shared by every process of a deployment. A session is one key that
 * expires with the session (PXAT); the per-user index is a set of session hashes,
 * cleaned as it is read. Writes use `SET ... XX`, so a deleted session is never revived.
 * Redis down or slow never holds a request: every operation fails within
 * `commandTimeoutMs` as a ServiceUnavailableError (503 with Retry-After).
 */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly redis: Redis,
    options: RedisSessionStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'cs:session:';
    this.timeoutMs = commandTimeout(options.commandTimeoutMs);
  }

  // Runs one store operation within the timeout; any Redis failure becomes a 503.
  private bounded<T>(operation: () => Promise<T>): Promise<T> {
    return boundedRedis(this.redis, this.timeoutMs, 'The session store is unavailable; try again shortly', operation);
  }

  insert(record: SessionRecord): Promise<void> {
    return this.bounded(async () => {
      await this.redis
        .multi()
        .set(this.key(record.idHash), JSON.stringify(record), 'PXAT', expiry(record))
        .sadd(this.userKey(record.userId), record.idHash)
        .exec();
    });
  }

  get(idHash: string): Promise<SessionRecord | null> {
    return this.bounded(() => this.read(idHash));
  }

  update(idHash: string, changes: SessionChanges): Promise<boolean> {
    return this.bounded(async () => {
      const current = await this.read(idHash);
      if (!current) return false;
      const next = { ...current, ...changes };
      // XX: only if the key still exists, so a revocation in between wins.
      const done = await this.redis.set(this.key(idHash), JSON.stringify(next), 'PXAT', expiry(next), 'XX');
      return done === 'OK';
    });
  }

  delete(idHashes: readonly string[]): Promise<number> {
    if (idHashes.length === 0) return Promise.resolve(0);
    return this.bounded(async () => {
      const records = await Promise.all(idHashes.map((h) => this.read(h)));
      const pipeline = this.redis.multi();
      for (const idHash of idHashes) pipeline.del(this.key(idHash));
      for (const record of records) if (record) pipeline.srem(this.userKey(record.userId), record.idHash);
      const results = (await pipeline.exec()) ?? [];
      return results.slice(0, idHashes.length).reduce((sum, [, count]) => sum + Number(count ?? 0), 0);
    });
  }

  listByUser(userId: string): Promise<SessionRecord[]> {
    return this.bounded(async () => {
      const hashes = await this.redis.smembers(this.userKey(userId));
      if (hashes.length === 0) return [];
      const texts = await this.redis.mget(hashes.map((h) => this.key(h)));
      const gone = hashes.filter((_, i) => texts[i] === null);
      if (gone.length > 0) await this.redis.srem(this.userKey(userId), ...gone);
      return texts.filter((t): t is string => t !== null).map((t) => JSON.parse(t) as SessionRecord);
    });
  }

  private async read(idHash: string): Promise<SessionRecord | null> {
    const text = await this.redis.get(this.key(idHash));
    return text ? (JSON.parse(text) as SessionRecord) : null;
  }

  /** Redis expires sessions by itself. */
  async deleteExpired(): Promise<number> {
    return 0;
  }

  private key(idHash: string): string {
    return `${this.prefix}s:${idHash}`;
  }

  private userKey(userId: string): string {
    return `${this.prefix}u:${userId}`;
  }
}

function expiry(record: SessionRecord): number {
  return Math.min(record.idleExpiresAt, record.absoluteExpiresAt);
}
