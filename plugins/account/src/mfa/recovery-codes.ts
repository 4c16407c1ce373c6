import { createHmac, randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import type { Migration } from '@crudsmith/core';

/** How many recovery codes an account gets at a time. */
export const RECOVERY_CODE_COUNT = 10;

// Lower-case letters and digits without the look-alikes 0/o, 1/l/i: 31 symbols, 12 of
// them (about 59 bits) per code, shown as xxxx-xxxx-xxxx.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 12;

/** A code as typed: case, spaces and dashes do not matter; anything longer than a code with separators is not one. */
export function normalizeRecoveryCode(input: string): string | null {
  if (input.length > 2 * LENGTH) return null;
  const code = input.toLowerCase().replace(/[\s-]/g, '');
  if (code.length !== LENGTH) return null;
  for (const char of code) if (!ALPHABET.includes(char)) return null;
  return code;
}

/** A new random code in its display form. */
function newCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
}

/**
 * Single-use recovery codes, stored only as an HMAC keyed by the app's secret and bound
 * to the account (a stolen table alone lets no one test guesses offline). Using a code is
 * one conditional UPDATE, so of concurrent uses of one code exactly one wins.
 */
export class RecoveryCodes {
  private key?: Promise<Buffer>;

  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    private readonly secret: () => Promise<Buffer>,
  ) {}

  /**
   * New codes for the user, hashed ahead: `store(db)` replaces every code of the user with
   * them and answers them (the only time they are shown). Run it in a transaction that
   * serializes replacements of the user, or two of them leave both sets.
   */
  async prepare(userId: string, now: number): Promise<{ store(db: Knex): Promise<string[]> }> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
    const rows = await Promise.all(
      codes.map(async (code) => ({
        user_id: userId,
        code_hash: await this.hash(userId, normalizeRecoveryCode(code)!),
        created_at: now,
      })),
    );
    return {
      store: async (db) => {
        await db(this.table).where({ user_id: userId }).delete();
        await db(this.table).insert(rows);
        return codes;
      },
    };
  }

  /** Uses a code up: true for exactly one caller when the code is the user's and unused. */
  async use(userId: string, input: string, now: number): Promise<boolean> {
    const code = normalizeRecoveryCode(input);
    if (!code) return false;
    const used = await this.knex(this.table)
      .where({ user_id: userId, code_hash: await this.hash(userId, code) })
      .whereNull('used_at')
      .update({ used_at: now });
    return Number(used) === 1;
  }

  /** How many unused codes the user has left. */
  async remaining(userId: string): Promise<number> {
    const [row] = await this.knex(this.table).where({ user_id: userId }).whereNull('used_at').count({ n: '*' });
    return Number(row?.n ?? 0);
  }

  /** Removes every code of the user (two-factor turned off). */
  async clear(userId: string, db: Knex = this.knex): Promise<void> {
    await db(this.table).where({ user_id: userId }).delete();
  }

  private async hash(userId: string, code: string): Promise<string> {
    this.key ??= this.secret();
    return createHmac('sha256', await this.key)
      .update(`${userId}:${code}`)
      .digest('hex');
  }
}

/** The recovery-code table. */
export function recoveryCodeMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('user_id', 64).notNullable().index();
        t.string('code_hash', 64).notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('used_at').nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}
