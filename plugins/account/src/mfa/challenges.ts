import type { Knex } from 'knex';
import type { Migration } from '@crudsmith/core';
import { hashSecret, randomToken } from '@crudsmith/core/auth';

/** Wrong codes a challenge takes before it dies. */
export const CHALLENGE_MAX_ATTEMPTS = 5;

/** How a sign-in that stopped at the second factor goes on once it is passed. */
export interface SignInIntent {
  transport: 'session' | 'bearer';
  /** Bearer sign-ins: the scopes granted. */
  scope?: string;
  /** Where the sign-in returns to (OAuth); echoed by /mfa/verify. */
  redirectTo?: string;
}

/** A pending second-factor step of a sign-in. */
export interface ChallengeRecord {
  userId: string;
  /** `sign-in`: the account has two-factor; `setup`: it must enroll first (its new secret is `secret`). */
  purpose: 'sign-in' | 'setup';
  intent: SignInIntent;
  /** The account's token_version when its first factor passed: a password change since kills the challenge. */
  tokenVersion: number;
  /** Setup challenges: the new TOTP secret, sealed. */
  secret: string | null;
  expiresAt: number;
}

/**
 * Where challenges live, shared by every process: the database by default, or Redis.
 * A challenge is named by a random token and stored under its hash.
 */
export interface ChallengeStore {
  /** Stores a challenge and answers its token. */
  create(record: ChallengeRecord, now: number): Promise<string>;
  /** The live challenge (not used, not expired, attempts left), without counting. */
  peek(token: string, now: number): Promise<ChallengeRecord | null>;
  /** Takes one of its attempts, atomically: null when it is used, expired, unknown or out of attempts. */
  attempt(token: string, now: number): Promise<ChallengeRecord | null>;
  /** Uses it up: true for exactly one caller. */
  consume(token: string, now: number): Promise<boolean>;
}

/** The challenge table. */
export function challengeMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.string('id_hash', 64).primary();
        t.string('user_id', 64).notNullable().index();
        t.string('purpose', 16).notNullable();
        t.string('intent', 2048).notNullable();
        t.string('secret', 255).nullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('expires_at').notNullable().index();
        t.bigInteger('used_at').nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/**
 * Challenges in the database. Each attempt is one conditional UPDATE that counts it
 * only while the challenge is live and has attempts left, so concurrent guesses cannot
 * go past the limit; using it up is another, which exactly one caller wins.
 */
export class KnexChallengeStore implements ChallengeStore {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
  ) {}

  async create(record: ChallengeRecord, now: number): Promise<string> {
    const token = randomToken(32);
    // Spent challenges are of no use: each new one clears its user's.
    await this.knex(this.table)
      .where({ user_id: record.userId })
      .where((q) => q.where('expires_at', '<=', now).orWhereNotNull('used_at'))
      .delete();
    await this.knex(this.table).insert({
      id_hash: hashSecret(token),
      user_id: record.userId,
      purpose: record.purpose,
      // The intent and the token version, as one JSON text.
      intent: JSON.stringify({ intent: record.intent, tokenVersion: record.tokenVersion }),
      secret: record.secret,
      attempts: 0,
      expires_at: record.expiresAt,
    });
    return token;
  }

  async peek(token: string, now: number): Promise<ChallengeRecord | null> {
    const row = await this.live(hashSecret(token), now).first();
    return row ? toRecord(row) : null;
  }

  async attempt(token: string, now: number): Promise<ChallengeRecord | null> {
    const idHash = hashSecret(token);
    const taken = await this.live(idHash, now).increment('attempts', 1);
    if (Number(taken) !== 1) return null;
    const row = await this.knex(this.table).where({ id_hash: idHash }).first();
    return row ? toRecord(row) : null;
  }

  async consume(token: string, now: number): Promise<boolean> {
    const used = await this.knex(this.table)
      .where({ id_hash: hashSecret(token) })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now });
    return Number(used) === 1;
  }

  /** Removes every expired or used challenge (at startup). */
  async prune(now: number): Promise<void> {
    await this.knex(this.table).where('expires_at', '<=', now).orWhereNotNull('used_at').delete();
  }

  private live(idHash: string, now: number) {
    return this.knex(this.table)
      .where({ id_hash: idHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .where('attempts', '<', CHALLENGE_MAX_ATTEMPTS);
  }
}

function toRecord(row: Record<string, unknown>): ChallengeRecord {
  const { intent, tokenVersion } = JSON.parse(String(row.intent)) as { intent: SignInIntent; tokenVersion: number };
  return {
    userId: String(row.user_id),
    purpose: row.purpose === 'setup' ? 'setup' : 'sign-in',
    intent,
    tokenVersion,
    secret: row.secret === null || row.secret === undefined ? null : String(row.secret),
    expiresAt: Number(row.expires_at),
  };
}
