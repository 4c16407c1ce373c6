import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Migration } from '@crudsmith/core';
import { hashSecret, randomToken, safeEqual } from '@crudsmith/core/auth';

/** An API key as stored and listed (never its secret). */
export interface ApiKey {
  id: number;
  userId: string;
  name: string;
  /** `<prefix>_<lookup>`: what a list shows to tell keys apart. */
  prefix: string;
  scopes: string[];
  /** The key's own rate-limit tier, or null for its owner's. */
  tierId: number | null;
  /** The owner's token version when the key was made: a password change or sign-out everywhere ends it. */
  tokenVersion: number;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

// Last use is written at most this often per key: a key in a busy loop costs no write per request.
const TOUCH_MS = 60_000;

/** The API key table. */
export function apiKeyMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('lookup', 16).notNullable().unique();
        t.string('secret_hash', 64).notNullable();
        t.string('user_id', 64).notNullable().index();
        t.string('name', 100).notNullable();
        t.string('scopes', 4000).notNullable();
        t.integer('token_version').notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('expires_at').nullable();
        t.bigInteger('last_used_at').nullable();
        t.bigInteger('revoked_at').nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** A key's own rate-limit tier (null: its owner's); no foreign key, as the tiers are another plugin's. */
export function apiKeyTierMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.integer('tier_id').nullable();
      });
    },
    async down(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.dropColumn('tier_id');
      });
    },
  };
}

/**
 * Scoped API keys: `<prefix>_<lookup>_<secret>`, where the lookup (64 random bits, hex)
 * finds the row with one indexed read and the secret (256 random bits) is kept only as
 * its SHA-256, compared in constant time.
 */
export class ApiKeys {
  private readonly pattern: RegExp;

  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    readonly prefix: string,
  ) {
    this.pattern = new RegExp(`^${prefix}_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$`);
  }

  /** Whether a presented credential has the form of one of our keys (a bearer token does not). */
  looksLikeKey(presented: string): boolean {
    return presented.startsWith(`${this.prefix}_`);
  }

  /** Makes a key; answers it (the only time the secret exists outside the caller) and its record. */
  async create(
    grant: {
      userId: string;
      name: string;
      scopes: string[];
      tierId: number | null;
      tokenVersion: number;
      expiresAt: number | null;
    },
    now: number,
  ): Promise<{ key: string; record: ApiKey }> {
    const lookup = randomBytes(8).toString('hex');
    const secret = randomToken(32);
    await this.knex(this.table).insert({
      lookup,
      secret_hash: hashSecret(secret),
      user_id: grant.userId,
      name: grant.name,
      scopes: JSON.stringify(grant.scopes),
      tier_id: grant.tierId,
      token_version: grant.tokenVersion,
      created_at: now,
      expires_at: grant.expiresAt,
    });
    const row = await this.knex(this.table).where({ lookup }).first();
    return { key: `${this.prefix}_${lookup}_${secret}`, record: this.record(row) };
  }

  /** The live (unrevoked, unexpired) key a caller presented, or null. */
  async find(presented: string, now: number): Promise<ApiKey | null> {
    const match = this.pattern.exec(presented);
    if (!match) return null;
    const row = await this.knex(this.table).where({ lookup: match[1] }).whereNull('revoked_at').first();
    if (!row || !safeEqual(String(row.secret_hash), hashSecret(match[2]))) return null;
    const key = this.record(row);
    if (key.expiresAt !== null && key.expiresAt <= now) return null;
    return key;
  }

  /**
   * Records a use, unless one was recorded in the last minute (one conditional write, so
   * concurrent uses write once); answers whether this was the key's first use ever.
   */
  async touch(key: ApiKey, now: number): Promise<boolean> {
    if (key.lastUsedAt !== null && now - key.lastUsedAt < TOUCH_MS) return false;
    const changed = await this.knex(this.table)
      .where({ id: key.id })
      .where((q) =>
        key.lastUsedAt === null
          ? q.whereNull('last_used_at')
          : q.whereNull('last_used_at').orWhere('last_used_at', '<=', now - TOUCH_MS),
      )
      .update({ last_used_at: now });
    return key.lastUsedAt === null && Number(changed) === 1;
  }

  /** A user's unrevoked keys of their current token version, newest first. */
  async list(userId: string, tokenVersion: number): Promise<ApiKey[]> {
    const rows = await this.knex(this.table)
      .where({ user_id: userId, token_version: tokenVersion })
      .whereNull('revoked_at')
      .orderBy('id', 'desc');
    return rows.map((row: Record<string, unknown>) => this.record(row));
  }

  /** Revokes one of a user's keys (through `db` when given: a transaction); answers it, or null when the user has no such live key. */
  async revoke(userId: string, id: number, now: number, db: Knex = this.knex): Promise<ApiKey | null> {
    const changed = await db(this.table)
      .where({ id, user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
    if (Number(changed) !== 1) return null;
    return this.record(await db(this.table).where({ id }).first());
  }

  private record(row: Record<string, unknown>): ApiKey {
    const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
    return {
      id: Number(row.id),
      userId: String(row.user_id),
      name: String(row.name),
      prefix: `${this.prefix}_${String(row.lookup)}`,
      scopes: JSON.parse(String(row.scopes)) as string[],
      tierId: number(row.tier_id),
      tokenVersion: Number(row.token_version),
      createdAt: Number(row.created_at),
      expiresAt: number(row.expires_at),
      lastUsedAt: number(row.last_used_at),
    };
  }
}
