import type { Knex } from 'knex';
import type { Migration } from '@crudsmith/core';
import { hashSecret, randomToken } from '@crudsmith/core/auth';

/** A stored refresh token (only the hash of the token itself is kept). */
export interface RefreshRecord {
  familyId: string;
  userId: string;
  scope: string;
  tokenVersion: number;
  authTime: number;
  expiresAt: number;
}

/** The outcome of presenting a refresh token. */
export type RotateResult = { ok: true; token: string; record: RefreshRecord } | { ok: false; reused: boolean };

/** The refresh-token table. */
export function refreshTokenMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('token_hash', 64).notNullable().unique();
        t.string('family_id', 32).notNullable().index();
        t.string('user_id', 64).notNullable().index();
        t.string('scope', 1024).notNullable().defaultTo('');
        t.integer('token_version').notNullable();
        t.bigInteger('auth_time').notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('expires_at').notNullable();
        t.bigInteger('used_at').nullable();
        t.bigInteger('revoked_at').nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/**
 * Opaque refresh tokens, stored hashed, rotated on every use. Rotation is one
 * conditional UPDATE, so of concurrent uses of one token at most one wins; presenting a
 * token that was already rotated revokes its whole family (it was stolen, or replayed).
 */
export class RefreshTokens {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    private readonly lifetimeMs: number,
  ) {}

  /** Starts a new family (at sign-in) or continues one (at rotation, inside its transaction). */
  async issue(
    record: Omit<RefreshRecord, 'expiresAt' | 'familyId'> & { familyId?: string },
    now: number,
    db: Knex = this.knex,
  ): Promise<{ token: string; record: RefreshRecord }> {
    const token = randomToken(32);
    const stored: RefreshRecord = {
      ...record,
      familyId: record.familyId ?? randomToken(16),
      expiresAt: now + this.lifetimeMs,
    };
    await db(this.table).insert({
      token_hash: hashSecret(token),
      family_id: stored.familyId,
      user_id: stored.userId,
      scope: stored.scope,
      token_version: stored.tokenVersion,
      auth_time: stored.authTime,
      created_at: now,
      expires_at: stored.expiresAt,
    });
    return { token, record: stored };
  }

  /**
   * Uses a token up and issues its successor; a reused token revokes its family.
   * Marking the token used and inserting its successor are one transaction: the UPDATE
   * holds the token's row until the successor is committed, so a concurrent use of the
   * same token waits, finds it used, and its revocation of the family (a statement that
   * starts after that commit) sees the successor too. Otherwise the revocation could run
   * between the two and leave the successor alive.
   */
  async rotate(token: string, now: number): Promise<RotateResult> {
    const tokenHash = hashSecret(token);
    // MariaDB may pick one of the concurrent uses as a deadlock victim while they wait on
    // the token's row: that use starts again, and then finds the token used.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rotateOnce(tokenHash, now);
      } catch (error) {
        if (attempt >= 3 || !isDeadlock(error)) throw error;
      }
    }
  }

  private async rotateOnce(tokenHash: string, now: number): Promise<RotateResult> {
    const rotated = await this.knex.transaction(async (trx) => {
      const won = await trx(this.table)
        .where({ token_hash: tokenHash })
        .whereNull('used_at')
        .whereNull('revoked_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (Number(won) !== 1) return null;
      const row = await trx(this.table).where({ token_hash: tokenHash }).first();
      return this.issue(toRecord(row), now, trx);
    });
    if (rotated) return { ok: true, token: rotated.token, record: rotated.record };
    const row = await this.knex(this.table).where({ token_hash: tokenHash }).first();
    // Used before, and not by us just now: replay. Kill every token of the family.
    const reused = Boolean(row && row.used_at !== null && row.revoked_at === null);
    if (row && row.used_at !== null) await this.revokeFamily(String(row.family_id), now);
    return { ok: false, reused };
  }

  /** The family a token belongs to, if the token is known. */
  async familyOf(token: string): Promise<string | null> {
    const row = await this.knex(this.table)
      .where({ token_hash: hashSecret(token) })
      .first('family_id');
    return row ? String(row.family_id) : null;
  }

  async revokeFamily(familyId: string, now: number): Promise<void> {
    await this.knex(this.table).where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** Revokes every refresh token of a user (password change, sign-out everywhere). */
  async revokeUser(userId: string, now: number, db: Knex = this.knex): Promise<void> {
    await db(this.table).where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
  }
}

function isDeadlock(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === '40P01';
}

function toRecord(row: Record<string, unknown>): RefreshRecord {
  return {
    familyId: String(row.family_id),
    userId: String(row.user_id),
    scope: String(row.scope ?? ''),
    tokenVersion: Number(row.token_version),
    authTime: Number(row.auth_time),
    expiresAt: Number(row.expires_at),
  };
}
