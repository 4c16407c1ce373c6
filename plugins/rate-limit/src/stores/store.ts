/**
 * Where window counters live. `hit` is the only operation: increment the key and, on its
 * first increment, make it expire after `periodSeconds`, atomically, so two processes
 * never see the same count (STYLE rule 8).
 */
export interface RateLimitStore {
  /** The key's count after this request's increment. */
  hit(key: string, periodSeconds: number): Promise<number>;
  /** Releases timers and connections the store itself opened. */
  close?(): Promise<void>;
}

/** The store could not answer in time (Redis stopped, unreachable or too slow). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Settles with the work, or rejects with StoreUnavailableError after `ms`. A busy process
 * runs due timers before it reads the sockets, so an answer that arrived in time would
 * lose to the timer: the rejection waits for the next check phase (setImmediate), after
 * the pending I/O of this loop turn has been read. Only a store that did not answer times out.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new StoreUnavailableError(`${what} did not answer within ${ms} ms`)));
    }, ms);
  });
  return Promise.race([work, timeout]).finally(() => {
    clearTimeout(timer);
    clearImmediate(immediate);
  });
}
