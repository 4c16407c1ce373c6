import type { Knex } from 'knex';
import type { Migration } from '@crudsmith/core';
import { hashSecret, randomToken, safeEqual } from '@crudsmith/core/auth';

/** What a mailed token is for: confirming the address, resetting the password, changing the address. */
export type TokenPurpose = 'verify' | 'reset' | 'change';

/** A live token as stored (only its hash is kept). */
export interface AccountToken {
  id: number;
  purpose: TokenPurpose;
  userId: string;
  /** Fingerprint of the account's state the token was issued for (see `stateFingerprint`). */
  state: string;
  /** What the token carries: the new address of a change, the `redirect_to` to echo. */
  payload: Record<string, string>;
  expiresAt: number;
}

/** Longest token the confirm routes look up; ours are 43 characters. */
export const MAX_TOKEN_LENGTH = 128;

/** The table of mailed tokens. */
export function accountTokenMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('token_hash', 64).notNullable().unique();
        t.string('purpose', 16).notNullable();
        t.string('user_id', 64).notNullable().index();
        t.string('state', 64).notNullable();
        t.string('payload', 4096).notNullable().defaultTo('{}');
        t.bigInteger('created_at').notNullable();
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
 * A fingerprint of the parts of an account a token depends on (the password hash for a
 * reset, the address for a verification, the address and token version for a change). A
 * token is honoured only while the account still has the fingerprint it was issued with:
 * a reset token dies when the password changes, a change token when the address does or
 * the account is signed out everywhere.
 */
export function stateFingerprint(parts: unknown[]): string {
  return hashSecret(JSON.stringify(parts));
}

/**
 * Single-use tokens for the e-mail and recovery routes: random (256 bits), stored only
 * as their SHA-256, bound to a purpose, an account and that account's state, expiring.
 * Using one up is one conditional UPDATE, so of concurrent confirms exactly one wins.
 */
export class AccountTokens {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
  ) {}

  /** Issues a token; answers the token itself (the only copy: it goes into the mail). */
  async issue(grant: Omit<AccountToken, 'id' | 'expiresAt'>, lifetimeMs: number, now: number): Promise<string> {
    const token = randomToken(32);
    await this.knex(this.table).insert({
      token_hash: hashSecret(token),
      purpose: grant.purpose,
      user_id: grant.userId,
      state: grant.state,
      payload: JSON.stringify(grant.payload),
      created_at: now,
      expires_at: now + lifetimeMs,
    });
    // Tokens a day past their end serve nothing: keep the table to the live ones.
    await this.knex(this.table)
      .where('expires_at', '<', now - 86_400_000)
      .delete();
    return token;
  }

  /** The live (unused, unexpired) token of `purpose`, or null. */
  async find(token: string, purpose: TokenPurpose, now: number): Promise<AccountToken | null> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    const row = await this.knex(this.table)
      .where({ token_hash: hashSecret(token), purpose })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first();
    if (!row) return null;
    return {
      id: Number(row.id),
      purpose,
      userId: String(row.user_id),
      state: String(row.state),
      payload: JSON.parse(String(row.payload)),
      expiresAt: Number(row.expires_at),
    };
  }

  /** Whether the token still fits the account's state now. */
  fits(token: AccountToken, state: string): boolean {
    return safeEqual(token.state, state);
  }

  /** Uses the token up: true for exactly one of any number of concurrent calls, false once used or expired. */
  async consume(token: AccountToken, now: number): Promise<boolean> {
    const won = await this.knex(this.table)
      .where({ id: token.id })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now });
    return Number(won) === 1;
  }
}
