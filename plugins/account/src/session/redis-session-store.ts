import type { SessionChanges, SessionRecord, SessionStore } from '@crudsmith/core/auth';
import { boundedRedis, commandTimeout, type RedisClient } from '../bounded-redis';

/** Options of the Redis session store. */
export interface RedisSessionStoreOptions {
  /** Prefix of every key (default `cs:session:`). */
  prefix?: string;
  /** Longest wait for one store operation before the request answers 503, in ms (default 1000). */
  commandTimeoutMs?: number;
  /**
   * Replicas that must hold a new session before sign-in answers (Redis WAIT; default 0).
   * Redis replicates asynchronously: with 0, a master that dies right after a sign-in may
   * take that session with it when its replica takes over. With 1 (one replica per master),
   * a session that was answered survives the failover; fewer acknowledgements within the
   * command timeout answer 503 (the client signs in again).
   */
  replicas?: number;
}

/**
 * Sessions in Redis (one server or a Redis Cluster), shared by every process of a
 * deployment. A session is one key that expires with the session (PXAT); the per-user index
 * is a sorted set of session hashes scored by their expiry, trimmed by time as it is read.
 * Every command touches one key, so no command spans two cluster slots. Writes use
 * `SET ... XX`, so a deleted session is never revived. Redis down or slow never holds a
 * request: every operation fails within `commandTimeoutMs` as a ServiceUnavailableError
 * (503 with Retry-After).
 */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly replicas: number;

  constructor(
    private readonly redis: RedisClient,
    options: RedisSessionStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'cs:session:';
    this.timeoutMs = commandTimeout(options.commandTimeoutMs);
    this.replicas = options.replicas ?? 0;
    if (!Number.isSafeInteger(this.replicas) || this.replicas < 0)
      throw new RangeError(`replicas must be a whole number, got ${this.replicas}`);
  }

  // Runs one store operation within the timeout; any Redis failure becomes a 503.
  private bounded<T>(operation: () => Promise<T>): Promise<T> {
    return boundedRedis(this.redis, this.timeoutMs, 'The session store is unavailable; try again shortly', operation);
  }

  insert(record: SessionRecord): Promise<void> {
    return this.bounded(async () => {
      // Indexed first: a session that exists is always in its user's index, so "sign out
      // everywhere" finds it even when the second write fails. An index entry without its
      // session is only read as absent, and leaves the index when it expires.
      await this.redis.zadd(this.userKey(record.userId), expiry(record), record.idHash);
      const key = this.key(record.idHash);
      if (this.replicas === 0) {
        await this.redis.set(key, JSON.stringify(record), 'PXAT', expiry(record));
        return;
      }
      // One pipeline, so WAIT goes down the connection (the cluster node) that took the write.
      const results = await this.redis
        .pipeline()
        .set(key, JSON.stringify(record), 'PXAT', expiry(record))
        .wait(this.replicas, Math.max(1, Math.floor(this.timeoutMs / 2)))
        .exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
      const acknowledged = Number(results?.[1]?.[1] ?? 0);
      if (acknowledged < this.replicas)
        throw new Error(`${acknowledged} of ${this.replicas} replicas acknowledged the session`);
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
      if (done !== 'OK') return false;
      // The index entry lives as long as its session (XX: never re-adds a revoked one).
      await this.redis.zadd(this.userKey(next.userId), 'XX', expiry(next), idHash);
      return true;
    });
  }

  delete(idHashes: readonly string[]): Promise<number> {
    if (idHashes.length === 0) return Promise.resolve(0);
    return this.bounded(async () => {
      const records = await Promise.all(idHashes.map((h) => this.read(h)));
      const counts = await Promise.all(idHashes.map((h) => this.redis.del(this.key(h))));
      await Promise.all(records.map((record) => record && this.redis.zrem(this.userKey(record.userId), record.idHash)));
      return counts.reduce((sum, count) => sum + count, 0);
    });
  }

  listByUser(userId: string): Promise<SessionRecord[]> {
    return this.bounded(async () => {
      const index = this.userKey(userId);
      // Trimmed by time only: an entry whose session is still being written is never lost.
      await this.redis.zremrangebyscore(index, '-inf', Date.now());
      const hashes = await this.redis.zrange(index, 0, -1);
      const records = await Promise.all(hashes.map((h) => this.read(h)));
      return records.filter((r): r is SessionRecord => r !== null);
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

  // `x:`, not the `u:` set earlier versions kept: a sorted set under a new name, so an
  // old index left in Redis is never read with the wrong type (it is never written again).
  private userKey(userId: string): string {
    return `${this.prefix}x:${userId}`;
  }
}

function expiry(record: SessionRecord): number {
  return Math.min(record.idleExpiresAt, record.absoluteExpiresAt);
}
