import { createHmac } from 'node:crypto';
import { randomToken } from './secrets';
import { HashPool } from './hash-pool';

/** bcrypt reads at most this many bytes of its input; the rest would be silently ignored. */
export const BCRYPT_MAX_BYTES = 72;

// Domain separation: this pre-hash never equals a plain SHA-256 of the password, so a
// leak of unsalted SHA-256 hashes elsewhere cannot be "shucked" against ours. The key keeps
// its first name: hashes stored with it must keep verifying.
const PREHASH_KEY = 'crudsmith/account/bcrypt-prehash/v1';

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

/** Settings of a `PasswordHasher`. */
export interface PasswordHasherOptions {
  /** bcrypt's cost (default 12). */
  rounds?: number;
  /** Longest password verified; a longer one fails after the same work as any other (default 1024). */
  maxLength?: number;
}

/**
 * bcrypt hashing and verification shared by the account plugin and the admin, so both
 * store and check passwords the same way without importing each other. The hashing runs
 * in a `HashPool`, off the event loop; requests hash through `bounded`.
 */
export class PasswordHasher {
  readonly maxLength: number;
  readonly rounds: number;
  readonly pool: HashPool;
  private dummy?: Promise<string>;

  constructor(options: PasswordHasherOptions = {}, pool = new HashPool()) {
    this.pool = pool;
    this.rounds = options.rounds ?? 12;
    this.maxLength = Math.max(64, options.maxLength ?? 1024);
  }

  /** The bcrypt hash of a password (normalised, pre-hashed past 72 bytes). */
  hash(password: string): Promise<string> {
    return this.pool.hash(bcryptInput(password), this.rounds);
  }

  /**
   * Runs `work` (which hashes or verifies) holding a slot of the pool for `client` (the
   * caller's address; undefined for the app's own code): 429/503 at once when the pool's
   * bounds are reached, rather than a queue without limit.
   */
  bounded<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.pool.admit(client, work);
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
    const ok = (await this.pool.compare(input, usable ? hash : await this.dummyHash())) && usable && input !== '';
    // A wrong password (or an unknown name) counts against the caller's address: cheap to send, not to check.
    if (!ok) this.pool.failed();
    return ok;
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
