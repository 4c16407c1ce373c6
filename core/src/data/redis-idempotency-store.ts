import { ServiceUnavailableError } from '../errors/http-error';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from './idempotency-store';

// Idempotency keys in Redis, shared by every process that talks to it. A request claims its
// key with one `SET … NX PX`: Redis runs it atomically, so of two requests with one key
// exactly one goes on, and the key expires by itself with its time to live. Every command
// names one key, so a Redis Cluster serves it as one server does.

/** The Redis commands the store sends: an ioredis `Redis` or `Cluster` client has them. */
export interface IdempotencyRedis {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** What the store keeps under a key (short names: one record per request with a key). */
interface Stored {
  f: string;
  e: number;
  s?: number;
  r?: string;
}

/** Idempotency keys in Redis (one server or a Cluster); the database argument of each method is unused. */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly redis: IdempotencyRedis,
    readonly prefix = 'cs:idempotency:',
    private readonly timeoutMs = 1000,
  ) {}

  /** Sets the key's record as running unless the key has one: true when this request claimed it. */
  claim(_db: unknown, claim: IdempotencyClaim): Promise<boolean> {
    const { scope, fingerprint, now, ttlMs } = claim;
    const record: Stored = { f: fingerprint, e: now + ttlMs };
    return this.bounded(
      async () => (await this.redis.call('SET', this.key(scope), JSON.stringify(record), 'PX', ttlMs, 'NX')) === 'OK',
    );
  }

  /** The key's record, or undefined (none, or expired). */
  find(_db: unknown, scope: string): Promise<IdempotencyRecord | undefined> {
    return this.bounded(async () => {
      const stored = await this.read(scope);
      if (!stored) return undefined;
      return { fingerprint: stored.f, status: stored.s ?? null, response: stored.r ?? null, expiresAt: stored.e };
    });
  }

  /** Stores the answer of the request that claimed the key, keeping the key's time to live. */
  finish(_db: unknown, scope: string, status: number, response: string): Promise<void> {
    return this.bounded(async () => {
      const stored = await this.read(scope);
      if (!stored) return;
      // XX: a key that expired meanwhile is not brought back.
      await this.redis.call(
        'SET',
        this.key(scope),
        JSON.stringify({ ...stored, s: status, r: response }),
        'XX',
        'KEEPTTL',
      );
    });
  }

  /** Removes the key (its request failed and wrote nothing), or only if it expired by `expiredBy`. */
  release(_db: unknown, scope: string, expiredBy?: number): Promise<void> {
    return this.bounded(async () => {
      if (expiredBy !== undefined) {
        const stored = await this.read(scope);
        if (!stored || stored.e > expiredBy) return;
      }
      await this.redis.call('DEL', this.key(scope));
    });
  }

  /** Nothing to do: Redis expires keys itself. */
  async sweep(): Promise<void> {}

  private async read(scope: string): Promise<Stored | undefined> {
    const text = await this.redis.call('GET', this.key(scope));
    return typeof text === 'string' ? (JSON.parse(text) as Stored) : undefined;
  }

  private key(scope: string): string {
    return `${this.prefix}${scope}`;
  }

  // Redis down or slow is a 503 within the timeout that the client may retry, never a 500,
  // a hung request or a create run without its key.
  private async bounded<T>(operation: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([operation(), late]);
    } catch (error) {
      throw new ServiceUnavailableError('The idempotency store is unavailable; try again shortly', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}
