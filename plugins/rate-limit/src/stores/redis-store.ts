import { StoreUnavailableError, withTimeout, type RateLimitStore } from './store';
import type { RedisClient } from '../redis-client';

/** Options of RedisStore. */
export interface RedisStoreOptions {
  /** How long one increment may take before the request goes on without it, in ms. Default 500. */
  commandTimeoutMs?: number;
}

// INCR and the first EXPIRE in one script: one round trip (EVALSHA), and no window can
// be left without an expiry by a crash between the two.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;
const COMMAND = 'crudsmithRateLimitHit';

// While ioredis reconnects, a command would wait in its offline queue (or be refused
// only after its retries): answer at once instead, and count again once it is back.
const DOWN = new Set(['reconnecting', 'close', 'end']);

type WithHit = { [COMMAND](key: string, period: number): Promise<number> };

/**
 * Window counters in Redis (one server or a Redis Cluster: every counter is one key, and
 * its script touches only that key), shared by every process of a deployment. Never
 * hangs a request: a stopped or slow Redis is a StoreUnavailableError within
 * `commandTimeoutMs`, and the same client recovers on its own when Redis returns.
 * Passed as `rateLimit({ store })`, its client also carries limit changes between processes.
 */
export class RedisStore implements RateLimitStore {
  /** The ioredis client counters go through; the caller owns (and quits) it. */
  readonly client: RedisClient;
  private readonly timeoutMs: number;

  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    this.client = client;
    this.timeoutMs = options.commandTimeoutMs ?? 500;
    if (!(this.timeoutMs > 0)) throw new RangeError(`commandTimeoutMs must be positive, got ${this.timeoutMs}`);
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart (NOSCRIPT).
    if (typeof (client as unknown as Partial<WithHit>)[COMMAND] !== 'function')
      client.defineCommand(COMMAND, { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, periodSeconds: number): Promise<number> {
    if (DOWN.has(this.client.status)) throw new StoreUnavailableError(`Redis is unavailable (${this.client.status})`);
    try {
      const count = await withTimeout(
        (this.client as unknown as WithHit)[COMMAND](key, periodSeconds),
        this.timeoutMs,
        'Redis',
      );
      return Number(count);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`Redis failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
  }
}
