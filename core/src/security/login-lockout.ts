import type { Knex } from 'knex';
import type { Migration } from '../migrations';
import { mapDatabaseError } from '../errors/database-error';
import { DuplicateValueError } from '../errors/http-error';

const DAY = 86_400;
// Forgotten rows are swept at most this often per process: a sweep scans the table.
const SWEEP_MS = 60_000;

/** The lockout policy (the account plugin's and the admin's `lockout` option). */
export interface LockoutOptions {
  /** Consecutive failures before the first lock (default 5, at most 10). */
  threshold?: number;
  /** First lock; each further failure doubles it (default 60 s). */
  baseSeconds?: number;
  /** Longest lock (default and ceiling: one day). */
  maxSeconds?: number;
  /**
   * Failures older than this are forgotten (default one day); a row idle this long and not
   * locked is deleted (at most once a minute, as new names come), so the rows unknown names
   * add stay bounded.
   */
  resetAfterSeconds?: number;
}

/** The sign-in failure table. */
export function loginFailureMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.string('key', 80).primary();
        t.integer('failures').notNullable();
        t.bigInteger('last_failure_at').notNullable();
        t.bigInteger('locked_until').notNullable().defaultTo(0);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** The column the lockout periods are counted in (a second migration, after `loginFailureMigration`). */
export function loginLockoutsMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.integer('lockouts').notNullable().defaultTo(0);
      });
    },
    async down(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.dropColumn('lockouts');
      });
    },
  };
}

/** How long the lock of lockout period `period` lasts (seconds): the first is `baseSeconds`, each next one twice the last, never beyond `maxSeconds`. */
export function lockSeconds(period: number, policy: Required<LockoutOptions>): number {
  const doubled = policy.baseSeconds * 2 ** Math.min(Math.max(0, period), 30);
  return Math.min(doubled, policy.maxSeconds);
}

/** Whether a sign-in may check its password, and if not, when to come back. */
export type Attempt = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * Per-account sign-in lockout in the database, so every process sees the same count.
 * The key is the account (its id), or a hash of the normalised identifier when no
 * account matches: unknown names lock exactly like real ones, so a lock tells nothing.
 *
 * An attempt is counted BEFORE its password is checked, by one conditional UPDATE: the
 * row allows `threshold` attempts (one after a lock has expired), and a request that
 * finds them taken is refused without a bcrypt. So concurrent wrong passwords cannot all
 * be checked: the database serialises the UPDATEs on the row and each sees the count the
 * one before left. Columns: `failures` counts the attempts of the current period,
 * `lockouts` the lock periods so far (it sets the next lock's length), `locked_until` ends
 * the current lock, `last_failure_at` the last attempt (a day later all is forgotten).
 */
export class Lockout {
  readonly policy: Required<LockoutOptions>;
  private nextSweepAt = 0;

  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    options: LockoutOptions = {},
  ) {
    this.policy = {
      threshold: Math.min(10, Math.max(1, options.threshold ?? 5)),
      baseSeconds: Math.max(1, options.baseSeconds ?? 60),
      maxSeconds: Math.min(DAY, options.maxSeconds ?? DAY),
      resetAfterSeconds: options.resetAfterSeconds ?? DAY,
    };
  }

  /**
   * Takes one attempt for `key`, atomically, before the password is checked: allowed
   * while the key is not locked and its period has attempts left; refused otherwise,
   * with the seconds until it may try (the lock's rest, or the length of the lock the
   * attempts in flight are about to cause).
   */
  async attempt(key: string, now: number): Promise<Attempt> {
    return this.take(key, now, 3);
  }

  private async take(key: string, now: number, retries: number): Promise<Attempt> {
    const stale = now - this.policy.resetAfterSeconds * 1000;
    const rowAllowance = this.knex.raw('case when lockouts = 0 then ? else 1 end', [this.policy.threshold]);
    // MariaDB evaluates SET left to right with the values already assigned: lockouts and
    // failures read last_failure_at before it is set, so it comes last.
    const taken = await this.knex(this.table)
      .where({ key })
      .where('locked_until', '<=', now)
      .where((q) => q.where('last_failure_at', '<', stale).orWhere('failures', '<', rowAllowance))
      .update({
        lockouts: this.knex.raw('case when last_failure_at < ? then 0 else lockouts end', [stale]),
        failures: this.knex.raw('case when last_failure_at < ? then 1 else failures + 1 end', [stale]),
        last_failure_at: now,
      });
    if (Number(taken) > 0) return { allowed: true };
    const row = await this.row(key);
    if (!row) {
      try {
        await this.knex(this.table).insert({ key, failures: 1, lockouts: 0, last_failure_at: now, locked_until: 0 });
        await this.sweep(now);
        return { allowed: true };
      } catch (error) {
        // Another request inserted it first: take an attempt on its row.
        if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
        return this.take(key, now, retries);
      }
    }
    // A concurrent first attempt inserted the row after this one's UPDATE found none: when
    // it still has attempts left, take one on it (a few times at most: each retry means
    // another request took one meanwhile) rather than refuse an account that is not locked.
    const allowance = row.lockouts === 0 ? this.policy.threshold : 1;
    if (retries > 0 && row.lockedUntil <= now && row.failures < allowance) return this.take(key, now, retries - 1);
    // The lock may have been set by a request whose clock read came after this one's:
    // what is left of it is never more than its length.
    const lockedFor = Math.min(Math.ceil((row.lockedUntil - now) / 1000), lockSeconds(row.lockouts - 1, this.policy));
    return { allowed: false, retryAfter: row.lockedUntil > now ? lockedFor : lockSeconds(row.lockouts, this.policy) };
  }

  /**
   * The attempt failed: when it was the last its period allowed, the key is locked for
   * the period's length and the next period begins. The lock is set by a conditional
   * UPDATE on the period it read, so the failures of one burst lock once, never once each.
   */
  async fail(key: string, now: number): Promise<void> {
    const row = await this.row(key);
    const allowance = row && row.lockouts === 0 ? this.policy.threshold : 1;
    if (!row || row.failures < allowance || row.lockedUntil > now) return;
    await this.knex(this.table)
      .where({ key, lockouts: row.lockouts })
      .where('locked_until', '<=', now)
      .where('failures', '>=', allowance)
      .update({
        locked_until: now + lockSeconds(row.lockouts, this.policy) * 1000,
        lockouts: row.lockouts + 1,
        failures: 0,
      });
  }

  /**
   * Counts one event in a fixed window (`/register` per client address) on the same
   * table, atomically, and answers the count so far in this window.
   */
  async hit(key: string, windowMs: number, now: number): Promise<{ count: number; retryAfter: number }> {
    const start = now - (now % windowMs);
    const windowKey = `${key}:${start}`;
    const bump = () => this.knex(this.table).where({ key: windowKey }).increment('failures', 1);
    if (Number(await bump()) === 0) {
      try {
        await this.knex(this.table).insert({
          key: windowKey,
          failures: 1,
          last_failure_at: now,
          locked_until: start + windowMs,
        });
        // Windows past are of no use: drop them now and then (on each window's first hit).
        await this.knex(this.table)
          .where('key', 'like', `${key.split(':')[0]}:%`)
          .where('locked_until', '<=', start)
          .delete();
      } catch (error) {
        if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
        await bump();
      }
    }
    const row = await this.knex(this.table).where({ key: windowKey }).first('failures');
    return { count: Number(row?.failures ?? 0), retryAfter: Math.ceil((start + windowMs - now) / 1000) };
  }

  /** Which of `keys` are locked at `now` (one query; a page of accounts asks once). */
  async lockedKeys(keys: readonly string[], now: number): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.knex(this.table).whereIn('key', keys).where('locked_until', '>', now).select('key');
    return new Set((rows as { key: string }[]).map((row) => row.key));
  }

  /**
   * Deletes the rows an attempt would reset anyway (idle past `resetAfterSeconds`, not
   * locked): each name ever tried, known or not, has a row, so without this the table grows
   * with every name anonymous traffic makes up. Runs on a new row's insert, once a minute at most.
   */
  async sweep(now: number): Promise<void> {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_MS;
    await this.knex(this.table)
      .where('last_failure_at', '<', now - this.policy.resetAfterSeconds * 1000)
      .where('locked_until', '<=', now)
      .delete();
  }

  /** A success clears the count; through `db` when given (a transaction the clearing commits with). */
  async succeed(key: string, db: Knex = this.knex): Promise<void> {
    await db(this.table).where({ key }).delete();
  }

  private async row(key: string): Promise<{ failures: number; lockouts: number; lockedUntil: number } | null> {
    const row = await this.knex(this.table).where({ key }).first('failures', 'lockouts', 'locked_until');
    return row
      ? { failures: Number(row.failures), lockouts: Number(row.lockouts), lockedUntil: Number(row.locked_until) }
      : null;
  }
}
