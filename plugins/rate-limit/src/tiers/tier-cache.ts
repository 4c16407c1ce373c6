import type { Policy } from '../decide';

/** One stored limit as the cache needs it. */
export interface CachedRule {
  tier_id: number;
  path: string;
  name: string;
  limit: number;
  period: number;
}

/** Options of TierCache. */
export interface TierCacheOptions {
  /** Reads every stored limit (one query; the table is small). */
  load: () => Promise<CachedRule[]>;
  /** The limit of anonymous callers, of users without a tier, and of paths a tier does not list. */
  defaultPolicy: Policy;
  /** A loaded snapshot is reread after this long, in case a change bypassed invalidation. Default 60 000 ms. */
  maxAgeMs?: number;
  /** The clock, in ms. Default `Date.now`. */
  now?: () => number;
}

type Snapshot = Map<string, Policy>;

/**
 * Per-process cache of every tier's limits, so a request never queries the database
 * (a limited request costs one store round trip). The whole table is one
 * snapshot: a missing (tier, path) pair is as cheap to answer as a present one.
 * `invalidate` drops it; the next lookup rereads it, once, however many wait.
 */
export class TierCache {
  readonly defaultPolicy: Policy;
  private readonly load: () => Promise<CachedRule[]>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private snapshot: Snapshot | undefined;
  private loadedAt = 0;
  private loading: Promise<Snapshot> | undefined;
  // Bumped by invalidate, so a read that started before a change is never kept.
  private generation = 0;

  constructor(options: TierCacheOptions) {
    this.load = options.load;
    this.defaultPolicy = { name: 'default', ...options.defaultPolicy };
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The tier's limit on the first of `paths` (sanitized) it lists, else the default. */
  async lookup(tierId: number | string | null | undefined, paths: string | readonly string[]): Promise<Policy> {
    if (tierId === null || tierId === undefined) return this.defaultPolicy;
    const snapshot = await this.current();
    for (const path of typeof paths === 'string' ? [paths] : paths) {
      const policy = snapshot.get(keyOf(tierId, path));
      if (policy) return policy;
    }
    return this.defaultPolicy;
  }

  /** Drops the cached limits; the next lookup reads them again. */
  invalidate(): void {
    this.generation++;
    this.snapshot = undefined;
    this.loading = undefined;
  }

  /** The distinct (sanitized) paths of every stored limit. */
  async paths(): Promise<string[]> {
    const snapshot = await this.current();
    return [...new Set([...snapshot.keys()].map((key) => key.slice(key.indexOf('\u0000') + 1)))];
  }

  /** Loads the limits now (at startup), so the first request finds them cached. */
  async warm(): Promise<void> {
    await this.current();
  }

  private async current(): Promise<Snapshot> {
    if (this.snapshot && this.now() - this.loadedAt < this.maxAgeMs) return this.snapshot;
    if (!this.loading) this.loading = this.reload(this.generation);
    try {
      return await this.loading;
    } catch (error) {
      // An expired snapshot beats none while the database is away; a dropped one is not kept.
      if (this.snapshot) return this.snapshot;
      throw error;
    }
  }

  private async reload(generation: number): Promise<Snapshot> {
    try {
      const snapshot: Snapshot = new Map();
      for (const rule of await this.load())
        snapshot.set(keyOf(rule.tier_id, rule.path), { name: rule.name, limit: rule.limit, period: rule.period });
      if (generation === this.generation) {
        this.snapshot = snapshot;
        this.loadedAt = this.now();
      }
      return snapshot;
    } finally {
      if (generation === this.generation) this.loading = undefined;
    }
  }
}

function keyOf(tierId: number | string, path: string): string {
  return `${tierId}\u0000${path}`;
}
