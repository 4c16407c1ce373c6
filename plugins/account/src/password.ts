import { createHmac } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
import { randomToken, type ValidationIssue } from '@crudsmith/core';
import { HashPool } from './hash-pool';
import type { PasswordPolicyOptions } from './options';

/** bcrypt reads at most this many bytes of its input; the rest would be silently ignored. */
export const BCRYPT_MAX_BYTES = 72;

// Domain separation: this pre-hash never equals a plain SHA-256 of the password, so a
// leak of unsalted SHA-256 hashes elsewhere cannot be "shucked" against ours.
const PREHASH_KEY = 'crudsmith/account/bcrypt-prehash/v1';

let common: Set<string> | undefined;

/** The common-password list (zxcvbn's, ranked by frequency), entries the length rule lets through. */
function commonPasswords(): Set<string> {
  common ??= new Set(dictionary['passwords-common'].filter((word) => [...word].length >= 8).map((word) => word.toLowerCase()));
  return common;
}

/** Unicode-normalises a password (NFKC, as NIST SP 800-63B advises) before any use. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * What bcrypt is given. Up to 72 bytes, the normalised password itself (plain bcrypt,
 * so hashes stay portable). Longer, never truncated: we PRE-HASH it to the base64 of its
 * HMAC-SHA256 (44 bytes), so every byte counts. Knowing that pre-hash means knowing the
 * long password, so the two input spaces cannot be played against each other.
 */
export function bcryptInput(password: string): string {
  const normalized = normalizePassword(password);
  if (Buffer.byteLength(normalized, 'utf8') <= BCRYPT_MAX_BYTES) return normalized;
  return createHmac('sha256', PREHASH_KEY).update(normalized, 'utf8').digest('base64');
}

/** Hashing, verification and the policy, with the app's settings. */
export class Passwords {
  readonly minLength: number;
  readonly maxLength: number;
  private readonly rounds: number;
  private readonly blocklist: Set<string>;
  private dummy?: Promise<string>;

  /** bcrypt runs here, off the event loop; requests hash through `bounded`. */
  readonly pool: HashPool;

  constructor(options: PasswordPolicyOptions = {}, pool = new HashPool()) {
    this.pool = pool;
    this.minLength = Math.max(8, options.minLength ?? 8);
    this.maxLength = Math.max(64, options.maxLength ?? 1024);
    this.rounds = options.bcryptRounds ?? 12;
    this.blocklist = new Set([...(options.blocklist ?? [])].map((w) => normalizePassword(w).toLowerCase()));
  }

  hash(password: string): Promise<string> {
    return this.pool.hash(bcryptInput(password), this.rounds);
  }

  /**
   * Runs `work` (which hashes or verifies) holding a slot of the pool for `client` (the
   * caller's address; undefined for the app's own code): 429/503 at once when the pool's
   * bounds are reached, rather than a queue without limit.
   */
  async bounded<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    const release = this.pool.acquire(client);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Checks a password against a stored hash; with no hash (unknown user, or an account
   * without a password) it checks against a dummy hash of the same cost, so the answer
   * takes as long either way. bcryptjs compares the digests in constant time.
   */
  async verify(password: string, hash: string | null | undefined): Promise<boolean> {
    const usable = typeof hash === 'string' && hash.startsWith('$2');
    // An absurdly long input is refused, but only after the same work as any other.
    const input = [...password].length > this.maxLength ? '' : bcryptInput(password);
    const ok = await this.pool.compare(input, usable ? hash : await this.dummyHash());
    return ok && usable && input !== '';
  }

  /** The problems of a new password, as 422 issues at `loc` (empty when it passes). */
  check(password: unknown, loc: (string | number)[], context: string[] = []): ValidationIssue[] {
    if (typeof password !== 'string') return [{ loc, msg: 'Field required (a string)', type: password === undefined ? 'missing' : 'string_type' }];
    const normalized = normalizePassword(password);
    const length = [...normalized].length;
    if (length < this.minLength) return [{ loc, msg: `Password must be at least ${this.minLength} characters`, type: 'string_too_short' }];
    if (length > this.maxLength) return [{ loc, msg: `Password must be at most ${this.maxLength} characters`, type: 'string_too_long' }];
    if (normalized.includes('\u0000')) return [{ loc, msg: 'Password may not contain a NUL character', type: 'value_error' }];
    const lower = normalized.toLowerCase();
    if (commonPasswords().has(lower) || this.blocklist.has(lower)) {
      return [{ loc, msg: 'This password is too common; choose another', type: 'password_common' }];
    }
    for (const word of context) {
      if (word && lower === normalizePassword(word).toLowerCase()) {
        return [{ loc, msg: 'Password may not be your username or e-mail address', type: 'password_context' }];
      }
    }
    return [];
  }

  private dummyHash(): Promise<string> {
    // Kept once made; a failure (a worker lost) is not kept, so the next sign-in tries again.
    this.dummy ??= this.pool.hash(randomToken(), this.rounds).catch((error: unknown) => {
      this.dummy = undefined;
      throw error;
    });
    return this.dummy;
  }
}
