import type { RateLimitStore } from './store';

/** Options of MemoryStore. */
export interface MemoryStoreOptions {
  /** Most keys held at once; the oldest window is dropped beyond it. Default 100 000. */
  maxKeys?: number;
  /** How often expired windows are swept, in ms. Default 60 000. */
  sweepIntervalMs?: number;
  /** The clock, in ms (injected by tests). Default `Date.now`. */
  now?: () => number;
}

interface Counter {
  count: number;
  expiresAt: number;
}

/**
 * Window counters in this process: the embedded default, right for one process only.
 * Memory stays bounded: expired windows are swept on a timer that never keeps the
 * process alive, and when `maxKeys` is reached a write sweeps first and then drops the
 * oldest key (a Map iterates in insertion order), so a flood of distinct clients costs
 * at most `maxKeys` entries.
 */
export class MemoryStore implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private readonly maxKeys: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    if (!(Number.isSafeInteger(this.maxKeys) && this.maxKeys >= 1)) throw new RangeError(`maxKeys must be a positive integer, got ${this.maxKeys}`);
  }

  /** How many windows are held. */
  get size(): number {
    return this.counters.size;
  }

  async hit(key: string, periodSeconds: number): Promise<number> {
    const now = this.now();
    const counter = this.counters.get(key);
    if (counter && counter.expiresAt > now) return ++counter.count;
    // Re-inserted, not updated, so the Map's order stays the order of first hits.
    this.counters.delete(key);
    if (this.counters.size >= this.maxKeys) this.makeRoom(now);
    this.counters.set(key, { count: 1, expiresAt: now + periodSeconds * 1000 });
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
    this.sweep(now);
    while (this.counters.size >= this.maxKeys) {
      const oldest = this.counters.keys().next().value as string;
      this.counters.delete(oldest);
    }
  }

  private startSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
    // A limiter must never be the reason a process stays up.
    this.timer.unref();
  }
}
