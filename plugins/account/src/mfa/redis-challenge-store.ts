import { hashSecret, randomToken } from '@crudsmith/core/auth';
import { CHALLENGE_MAX_ATTEMPTS, type ChallengeRecord, type ChallengeStore } from './challenges';
import { boundedRedis, commandTimeout, type RedisClient } from '../bounded-redis';

/** Options of the Redis challenge store. */
export interface RedisChallengeStoreOptions {
  /** Prefix of every key (default `cs:mfa:`). */
  prefix?: string;
  /** Longest wait for one store operation before the request answers 503, in ms (default 1000). */
  commandTimeoutMs?: number;
}

// One attempt, atomically: only while the challenge exists, is unused, unexpired (by the
// app's clock, ARGV[1]) and has attempts left; answers its record, or false.
const ATTEMPT = `
local c = redis.call('HMGET', KEYS[1], 'record', 'used', 'expires_at', 'attempts')
if not c[1] or c[2] == '1' or tonumber(c[3]) <= tonumber(ARGV[1]) or tonumber(c[4]) >= tonumber(ARGV[2]) then return false end
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
return c[1]`;

// Uses it up: 1 for exactly one caller.
const CONSUME = `
local c = redis.call('HMGET', KEYS[1], 'used', 'expires_at')
if not c[1] or c[1] == '1' or tonumber(c[2]) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'used', '1')
return 1`;

/**
 * Two-factor challenges in Redis, shared by every process: one hash per challenge,
 * named by the hash of its token and expiring with it. Attempts and use are
 * Lua scripts, so each check and its write are one atomic step. Redis down or slow never
 * holds a sign-in: every operation fails within `commandTimeoutMs` as a 503. Every command
 * and script touches the one key of its challenge, so it works on Redis Cluster as it is.
 */
export class RedisChallengeStore implements ChallengeStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly redis: RedisClient,
    options: RedisChallengeStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'cs:mfa:';
    this.timeoutMs = commandTimeout(options.commandTimeoutMs);
  }

  // Runs one store operation within the timeout; any Redis failure becomes a 503.
  private bounded<T>(operation: () => Promise<T>): Promise<T> {
    return boundedRedis(
      this.redis,
      this.timeoutMs,
      'The two-factor challenge store is unavailable; try again shortly',
      operation,
    );
  }

  create(record: ChallengeRecord, now: number): Promise<string> {
    return this.bounded(async () => {
      const token = randomToken(32);
      const key = this.key(token);
      await this.redis
        .multi()
        .hset(key, { record: JSON.stringify(record), used: '0', attempts: '0', expires_at: String(record.expiresAt) })
        // Relative to the app's clock, as every expiry check here is.
        .pexpire(key, Math.max(1, record.expiresAt - now))
        .exec();
      return token;
    });
  }

  peek(token: string, now: number): Promise<ChallengeRecord | null> {
    return this.bounded(async () => {
      const [record, used, expiresAt, attempts] = await this.redis.hmget(
        this.key(token),
        'record',
        'used',
        'expires_at',
        'attempts',
      );
      if (!record || used === '1' || Number(expiresAt) <= now || Number(attempts) >= CHALLENGE_MAX_ATTEMPTS)
        return null;
      return JSON.parse(record) as ChallengeRecord;
    });
  }

  attempt(token: string, now: number): Promise<ChallengeRecord | null> {
    return this.bounded(async () => {
      const record = (await this.redis.eval(
        ATTEMPT,
        1,
        this.key(token),
        String(now),
        String(CHALLENGE_MAX_ATTEMPTS),
      )) as string | null;
      return record ? (JSON.parse(record) as ChallengeRecord) : null;
    });
  }

  consume(token: string, now: number): Promise<boolean> {
    return this.bounded(async () => Number(await this.redis.eval(CONSUME, 1, this.key(token), String(now))) === 1);
  }

  private key(token: string): string {
    return `${this.prefix}${hashSecret(token)}`;
  }
}
