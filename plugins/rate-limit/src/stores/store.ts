/**
 * Where window counters live. `hit` is the only operation: increment the key and, on its
 * first increment, make it expire after `periodSeconds`, atomically, so two processes
 * never see the same count.
 */
export interface RateLimitStore {
  /**
   * The key's count after this request's increment. `limit` is the window's limit, so a
   * store that must evict can tell the spent counters, which it must keep, from the rest.
   */
  hit(key: string, periodSeconds: number, limit?: number): Promise<number>;
  /** Releases timers and connections the store itself opened. */
  close?(): Promise<void>;
}

/**
 * The store holds as many windows as it may, every one of them live and spent: counting a
 * new key would mean forgetting a spent one. The request is refused (503) until
 * `retryAfterSeconds`, when the earliest of them ends; failing open here would hand out
 * budgets exactly while the store is flooded.
 */
export class StoreFullError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('The rate-limit store is full of spent windows');
    this.name = 'StoreFullError';
  }
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
  return new Promise<T>((resolve, reject) => {
    const watch: Watch = {
      deadline: performance.now() + ms,
      expire: () => reject(new StoreUnavailableError(`${what} did not answer within ${ms} ms`)),
    };
    watching.add(watch);
    if (watch.deadline < timerAt) arm(watch.deadline);
    else if (watching.size === 1) timer?.ref();
    work.then(
      (value) => {
        settled(watch);
        resolve(value);
      },
      (error: unknown) => {
        settled(watch);
        reject(error);
      },
    );
  });
}

// One timer watches every command in flight, armed for the earliest deadline, rather than
// a timer (and a race) per command: a limited request sends one command, and arming and
// clearing a timer for each cost more than the rest of the limiter's own work.
interface Watch {
  deadline: number;
  expire: () => void;
}
const watching = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;
let timerAt = Infinity;

function arm(at: number): void {
  clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(check, Math.max(1, Math.ceil(at - performance.now())));
}

// The timer stays armed for the next command (cheaper than re-arming it for each), but
// keeps the process up only while a command is in flight.
function settled(watch: Watch): void {
  if (watching.delete(watch) && watching.size === 0) timer?.unref();
}

function check(): void {
  timer = undefined;
  timerAt = Infinity;
  const now = performance.now();
  const due: Watch[] = [];
  let next = Infinity;
  for (const watch of watching) {
    if (watch.deadline <= now) due.push(watch);
    else if (watch.deadline < next) next = watch.deadline;
  }
  if (due.length > 0) {
    setImmediate(() => {
      // Answered meanwhile (read in this turn's poll phase): the answer stands.
      for (const watch of due) {
        if (!watching.has(watch)) continue;
        settled(watch);
        watch.expire();
      }
    });
  }
  if (next < Infinity) arm(next);
}
