import { AsyncLocalStorage } from 'node:async_hooks';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { RateLimitError, ServiceUnavailableError } from '../errors/http-error';

/** Bounds of password hashing (the account plugin's and the admin's `hashing` option). */
export interface HashingOptions {
  /** Worker threads running bcrypt (default: the cores less one, 1 to 4). */
  threads?: number;
  /** Hashes one client address may have running or waiting at once; beyond, 429 (default 4). */
  perClient?: number;
  /** Hashes running or waiting in all; beyond, 503 (default 8 per thread), except for an address with none (up to twice as many). */
  maxPending?: number;
  /**
   * Failed password checks one client address may make, as a bucket of `burst` (default
   * 60) refilled at `limit` per `periodSeconds` (default 600 an hour); empty, 429 before
   * any hashing. A correct password costs nothing, so many users behind one address sign
   * in freely; `false` turns it off.
   */
  failedChecks?: { limit: number; periodSeconds: number; burst?: number } | false;
}

/** Most addresses whose failed checks are remembered; past it, the ones back to a full bucket are forgotten. */
const MAX_BUCKETS = 100_000;

// The worker: bcryptjs's synchronous calls, one message at a time. Evaluated as a script,
// so it needs no file of its own next to the compiled package; bcryptjs comes by the path
// the main thread resolved.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcrypt);
parentPort.on('message', ({ id, op, a, b }) => {
  try {
    parentPort.postMessage({ id, result: op === 'hash' ? bcrypt.hashSync(a, b) : bcrypt.compareSync(a, b) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  id: number;
  /** The address it runs for ('' for the app's own code): the queue serves addresses in turn. */
  client: string;
  op: 'hash' | 'compare';
  a: string;
  b: string | number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * bcrypt off the event loop: a few worker threads, each running one hash at a time, and
 * admission bounds in front of them. A request takes a slot before it hashes (and
 * before the sign-in lockout counts it); a slot is refused at once, never queued without
 * limit: 429 when its client address already holds `perClient` or has used up its
 * failed checks, 503 when `maxPending` are taken in all. Admission is fair: an address
 * with nothing in flight is let in past `maxPending` (up to twice it), and the queue
 * serves the address served least recently first, so a few busy addresses delay a new
 * one by about one hash each instead of starving it. Each 503 carries `Retry-After: 1`.
 */
export class HashPool {
  readonly threads: number;
  readonly perClient: number;
  readonly maxPending: number;
  private readonly workers: { worker: Worker; busy: Job | null }[] = [];
  private readonly queue: Job[] = [];
  private readonly byClient = new Map<string, number>();
  private pending = 0;
  private nextId = 0;
  // The client each admitted piece of work runs for, so its hashes and failures are its own.
  private readonly admitted = new AsyncLocalStorage<string | undefined>();
  // When each client was last served (a dispatch counter), for the queue's turns.
  private readonly served = new Map<string, number>();
  private turns = 0;
  private readonly failedChecks: { rate: number; burst: number } | null;
  // Each client's bucket of failed checks: tokens left when last touched, and when.
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: HashingOptions = {}) {
    this.threads = Math.max(1, Math.floor(options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1))));
    this.perClient = Math.max(1, Math.floor(options.perClient ?? 4));
    this.maxPending = Math.max(this.threads, Math.floor(options.maxPending ?? this.threads * 8));
    const failed = options.failedChecks === undefined ? { limit: 600, periodSeconds: 3600 } : options.failedChecks;
    this.failedChecks = failed
      ? { rate: failed.limit / (failed.periodSeconds * 1000), burst: Math.max(1, failed.burst ?? 60) }
      : null;
  }

  /** Runs `work` holding a slot for `client` (see `acquire`); its hashes queue as that client's, its failed checks count against it. */
  async admit<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    const release = this.acquire(client);
    try {
      return await this.admitted.run(client, work);
    } finally {
      release();
    }
  }

  /** Counts a failed password check against the client of the work it runs in (nothing outside `admit`). */
  failed(now = Date.now()): void {
    const client = this.admitted.getStore();
    if (client === undefined || !this.failedChecks) return;
    this.buckets.set(client, { tokens: this.tokensOf(client, now) - 1, at: now });
    if (this.buckets.size > MAX_BUCKETS) {
      for (const [key] of this.buckets)
        if (this.tokensOf(key, now) >= this.failedChecks.burst) this.buckets.delete(key);
    }
  }

  // The client's failed checks left now: its bucket refilled since last touched, at most `burst`.
  private tokensOf(client: string, now: number): number {
    const { rate, burst } = this.failedChecks!;
    const bucket = this.buckets.get(client);
    return bucket ? Math.min(burst, bucket.tokens + (now - bucket.at) * rate) : burst;
  }

  /**
   * Takes a hashing slot for `client` (undefined: code of the app, bound only overall),
   * or throws 429/503. Answers the function that gives it back (call it once, in `finally`).
   */
  acquire(client?: string): () => void {
    const held = client === undefined ? 0 : (this.byClient.get(client) ?? 0);
    if (client !== undefined && held >= this.perClient) {
      throw new RateLimitError('Too many password checks in progress from this address; try again shortly', {
        retryAfter: 1,
      });
    }
    if (client !== undefined && this.failedChecks) {
      const left = this.tokensOf(client, Date.now());
      if (left < 1)
        throw new RateLimitError('Too many failed password checks from this address; try again later', {
          retryAfter: Math.ceil((1 - left) / this.failedChecks.rate / 1000),
        });
    }
    // Past maxPending only an address with nothing in flight gets in (fair admission), up to twice it.
    const full =
      client === undefined || held > 0 ? this.pending >= this.maxPending : this.pending >= this.maxPending * 2;
    if (full) {
      throw new ServiceUnavailableError('The server is busy checking passwords; try again shortly', { retryAfter: 1 });
    }
    this.pending += 1;
    if (client !== undefined) this.byClient.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pending -= 1;
      if (client === undefined) return;
      const left = (this.byClient.get(client) ?? 1) - 1;
      if (left > 0) this.byClient.set(client, left);
      else {
        this.byClient.delete(client);
        this.served.delete(client);
      }
    };
  }

  hash(input: string, rounds: number): Promise<string> {
    return this.run('hash', input, rounds) as Promise<string>;
  }

  compare(input: string, hash: string): Promise<boolean> {
    return this.run('compare', input, hash) as Promise<boolean>;
  }

  /** Ends the worker threads (a plugin's close); a later hash starts them again. */
  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }

  private run(op: Job['op'], a: string, b: string | number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, client: this.admitted.getStore() ?? '', op, a, b, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot =
        this.workers.find((w) => w.busy === null) ?? (this.workers.length < this.threads ? this.spawn() : undefined);
      if (!slot) return;
      const job = this.queue.splice(this.nextTurn(), 1)[0];
      this.served.set(job.client, ++this.turns);
      slot.busy = job;
      // A worker with a job keeps the process alive until it answers; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, op: job.op, a: job.a, b: job.b });
    }
  }

  // The queued job of the client served least recently (never: first), the oldest of its jobs.
  private nextTurn(): number {
    let best = 0;
    let bestTurn = Infinity;
    for (let i = 0; i < this.queue.length; i++) {
      const turn = this.served.get(this.queue[i].client) ?? -1;
      if (turn < bestTurn) {
        best = i;
        bestTurn = turn;
      }
    }
    return best;
  }

  private spawn(): { worker: Worker; busy: Job | null } {
    const worker = new Worker(WORKER, { eval: true, workerData: { bcrypt: require.resolve('bcryptjs') } });
    worker.unref();
    const slot: { worker: Worker; busy: Job | null } = { worker, busy: null };
    worker.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const job = slot.busy;
      slot.busy = null;
      worker.unref();
      if (job && job.id === message.id) {
        if (message.error !== undefined) job.reject(new Error(message.error));
        else job.resolve(message.result);
      }
      this.dispatch();
    });
    // A worker that dies fails its job and is replaced by the next dispatch.
    const lost = (error: Error) => {
      const index = this.workers.indexOf(slot);
      if (index !== -1) this.workers.splice(index, 1);
      slot.busy?.reject(error);
      slot.busy = null;
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`bcrypt worker exited (${code})`)));
    this.workers.push(slot);
    return slot;
  }
}
