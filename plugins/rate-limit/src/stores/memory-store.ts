import { StoreFullError, type RateLimitStore } from './store';

/** Options of MemoryStore. */
export interface MemoryStoreOptions {
  /** Most windows held at once. Default 100 000. */
  maxKeys?: number;
  /** How often expired windows are swept, in ms. Default 60 000. */
  sweepIntervalMs?: number;
  /** The clock, in ms (injected by tests). Default `Date.now`. */
  now?: () => number;
}

interface Counter {
  count: number;
  expiresAt: number;
  /** The window's limit; 0 when unknown, so such a counter counts as spent. */
  limit: number;
}

// When full, one pass frees this share of maxKeys, so its cost is spread over that many
// new keys rather than paid by each.
const FREE_SHARE = 0.1;

/**
 * Window counters in this process: the embedded default, right for one process only.
 * Memory stays bounded, but never by forgetting a spent window: forgetting one would give
 * its caller a fresh budget. Expired windows are swept on a timer that never keeps the
 * process alive. When `maxKeys` is reached, one pass drops the expired windows, then
 * the oldest windows still under their limit (their callers regain at most what they
 * had left, and only after a flood of `maxKeys` new keys), until a tenth of the room is
 * free. A store full of live, spent windows refuses new keys (StoreFullError, a 503)
 * until the earliest of them ends, while it still counts the keys it holds.
 */
export class MemoryStore implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private readonly maxKeys: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  /** Until when (ms) a full store refuses new keys without another pass: nothing can be freed before. */
  private fullUntil = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    if (!(Number.isSafeInteger(this.maxKeys) && this.maxKeys >= 1))
      throw new RangeError(`maxKeys must be a positive integer, got ${this.maxKeys}`);
  }

  /** How many windows are held. */
  get size(): number {
    return this.counters.size;
  }

  async hit(key: string, periodSeconds: number, limit = 0): Promise<number> {
    const now = this.now();
    const counter = this.counters.get(key);
    if (counter && counter.expiresAt > now) {
      counter.limit = limit;
      return ++counter.count;
    }
    // Re-inserted, not updated, so the Map's order stays the order of first hits.
    this.counters.delete(key);
    if (this.counters.size >= this.maxKeys) this.makeRoom(now);
    this.counters.set(key, { count: 1, expiresAt: now + periodSeconds * 1000, limit });
    this.startSweeping();
    return 1;
  }

  /** Drops every expired window; answers how many were dropped. */
  sweep(now = this.now()): number {
    let dropped = 0;
    for (const [key, counter] of this.counters) {
      if (counter.expiresAt <= now) {
        this.counters.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.counters.clear();
  }

  private makeRoom(now: number): void {
    if (now < this.fullUntil) throw new StoreFullError(Math.ceil((this.fullUntil - now) / 1000));
    this.sweep(now);
    const target = Math.max(0, Math.min(this.maxKeys - 1, Math.floor(this.maxKeys * (1 - FREE_SHARE))));
    let earliest = Infinity;
    for (const [key, counter] of this.counters) {
      if (this.counters.size <= target) break;
      if (counter.count < counter.limit) this.counters.delete(key);
      else if (counter.expiresAt < earliest) earliest = counter.expiresAt;
    }
    if (this.counters.size < this.maxKeys) return;
    // Every window left is live and spent (the loop saw them all).
    this.fullUntil = earliest;
    throw new StoreFullError(Math.ceil((earliest - now) / 1000));
  }

  private startSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
    // A limiter must never be the reason a process stays up.
    this.timer.unref();
  }
}
