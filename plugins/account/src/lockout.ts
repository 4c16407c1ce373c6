import type { Knex } from 'knex';
import { mapDatabaseError, DuplicateValueError, type Migration } from '@crudsmith/core';
import type { LockoutOptions } from './options';

const DAY = 86_400;

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

/** How long a lock lasts after `failures` consecutive failures (seconds; 0 below the threshold). */
export function lockSeconds(failures: number, policy: Required<LockoutOptions>): number {
  if (failures < policy.threshold) return 0;
  const doubled = policy.baseSeconds * 2 ** Math.min(failures - policy.threshold, 30);
  return Math.min(doubled, policy.maxSeconds);
}

/**
 * Per-account sign-in lockout in the database, so every process sees the same count.
 * The key is the account (its id), or a hash of the normalised identifier when no
 * account matches: unknown names lock exactly like real ones, so a lock tells nothing.
 */
export class Lockout {
  readonly policy: Required<LockoutOptions>;

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

  /** Seconds until the key may try again; 0 when it may now. */
  async retryAfter(key: string, now: number): Promise<number> {
    const row = await this.knex(this.table).where({ key }).first('locked_until');
    const until = Number(row?.locked_until ?? 0);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  /** Counts a failure (atomically) and locks when the count calls for it. */
  async fail(key: string, now: number): Promise<void> {
    const stale = now - this.policy.resetAfterSeconds * 1000;
    const bump = () =>
      this.knex(this.table)
        .where({ key })
        .update({
          failures: this.knex.raw('case when last_failure_at < ? then 1 else failures + 1 end', [stale]),
          last_failure_at: now,
        });
    if (Number(await bump()) === 0) {
      try {
        await this.knex(this.table).insert({ key, failures: 1, last_failure_at: now, locked_until: 0 });
      } catch (error) {
        // Another request inserted it first: count on its row.
        if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
        await bump();
      }
    }
    const row = await this.knex(this.table).where({ key }).first('failures');
    const seconds = lockSeconds(Number(row?.failures ?? 0), this.policy);
    if (seconds > 0) await this.knex(this.table).where({ key }).update({ locked_until: now + seconds * 1000 });
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
        await this.knex(this.table).insert({ key: windowKey, failures: 1, last_failure_at: now, locked_until: start + windowMs });
        // Windows past are of no use: drop them now and then (on each window's first hit).
        await this.knex(this.table).where('key', 'like', `${key.split(':')[0]}:%`).where('locked_until', '<=', start).delete();
      } catch (error) {
        if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
        await bump();
      }
    }
    const row = await this.knex(this.table).where({ key: windowKey }).first('failures');
    return { count: Number(row?.failures ?? 0), retryAfter: Math.ceil((start + windowMs - now) / 1000) };
  }

  /** A success clears the count. */
  async succeed(key: string): Promise<void> {
    await this.knex(this.table).where({ key }).delete();
  }
}
