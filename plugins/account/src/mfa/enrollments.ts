import type { Knex } from 'knex';
import { DuplicateValueError, mapDatabaseError, type Migration } from '@crudsmith/core';

/** An account's authenticator: its sealed TOTP secret, whether it is confirmed, and the last time step used. */
export interface Enrollment {
  secret: string;
  enabled: boolean;
  lastStep: number;
}

/** The enrollment table: one row per account that enrolled or started to. */
export function enrollmentMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.string('user_id', 64).primary();
        t.string('secret', 255).notNullable();
        t.bigInteger('enabled_at').nullable();
        t.bigInteger('last_step').notNullable().defaultTo(0);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/**
 * TOTP enrollments in the database. A time step is accepted once per account: using
 * one is a conditional UPDATE that moves `last_step` forward only past where it is, so
 * of concurrent requests carrying the same code exactly one wins, and a code of a step
 * at or before the last one used never passes again.
 */
export class Enrollments {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
  ) {}

  async get(userId: string): Promise<Enrollment | null> {
    const row = await this.knex(this.table).where({ user_id: userId }).first();
    return row
      ? { secret: String(row.secret), enabled: row.enabled_at !== null, lastStep: Number(row.last_step) }
      : null;
  }

  /** Starts (or restarts) an unconfirmed enrollment; false when the account is enrolled already. */
  async begin(userId: string, sealed: string): Promise<boolean> {
    await this.knex(this.table).where({ user_id: userId }).whereNull('enabled_at').delete();
    return this.insert({ user_id: userId, secret: sealed, enabled_at: null, last_step: 0 });
  }

  /** Confirms the unconfirmed enrollment holding `sealed`, with the step its first code used; false when another took its place. */
  async confirm(userId: string, sealed: string, step: number, now: number): Promise<boolean> {
    const done = await this.knex(this.table)
      .where({ user_id: userId, secret: sealed })
      .whereNull('enabled_at')
      .update({ enabled_at: now, last_step: step });
    return Number(done) === 1;
  }

  /** Enrolls at once, confirmed (a required enrollment at sign-in); false when the account is enrolled already. */
  async enroll(userId: string, sealed: string, step: number, now: number): Promise<boolean> {
    await this.knex(this.table).where({ user_id: userId }).whereNull('enabled_at').delete();
    return this.insert({ user_id: userId, secret: sealed, enabled_at: now, last_step: step });
  }

  /** Uses a time step of a confirmed enrollment: true for exactly one caller, and only when it is later than every step used before. */
  async useStep(userId: string, step: number): Promise<boolean> {
    const done = await this.knex(this.table)
      .where({ user_id: userId })
      .whereNotNull('enabled_at')
      .where('last_step', '<', step)
      .update({ last_step: step });
    return Number(done) === 1;
  }

  /**
   * Locks the confirmed enrollment's row for the rest of `trx` (SQLite's write
   * transactions are serial already); false when the account has none.
   */
  async lockEnabled(userId: string, trx: Knex.Transaction): Promise<boolean> {
    const row = await trx(this.table)
      .where({ user_id: userId })
      .whereNotNull('enabled_at')
      .forUpdate()
      .first('user_id');
    return row !== undefined;
  }

  async remove(userId: string, db: Knex = this.knex): Promise<void> {
    await db(this.table).where({ user_id: userId }).delete();
  }

  private async insert(row: Record<string, unknown>): Promise<boolean> {
    try {
      await this.knex(this.table).insert(row);
      return true;
    } catch (error) {
      if (mapDatabaseError(error) instanceof DuplicateValueError) return false;
      throw error;
    }
  }
}
