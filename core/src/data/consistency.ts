import { AsyncLocalStorage } from 'node:async_hooks';

// What a request needs of the replicas, carried through its async calls: the WAL position
// its client must see (its consistency token), whether the app asked for the primary, and
// whether it wrote (then its answer carries a new token).

/** A PostgreSQL WAL position as a number. */
export type Lsn = bigint;

/** A primary with replicas, as far as a request that wrote to it needs it. */
export interface WrittenPrimary {
  /** The primary's current WAL position, as PostgreSQL writes it (`16/B374D848`). */
  position(): Promise<string>;
}

/** The replica rule's view of the current request. */
export interface Consistency {
  /** Reads must see at least this position (the client's last write). */
  after?: Lsn;
  /** Every read of the request goes to the primary. */
  primaryOnly: boolean;
  /** The primary this request wrote to, if it did. */
  wrote?: WrittenPrimary;
}

const storage = new AsyncLocalStorage<Consistency>();

/** The current request's consistency, when replicas are in use and a request is being served. */
export function currentConsistency(): Consistency | undefined {
  return storage.getStore();
}

/** Runs `work` with `consistency` as the current request's. */
export function runWithConsistency<T>(consistency: Consistency, work: () => T): T {
  return storage.run(consistency, work);
}

/** Runs `work` with every repository read inside it on the primary (for a read that must be current). */
export function readFromPrimary<T>(work: () => T): T {
  return storage.run({ ...storage.getStore(), primaryOnly: true }, work);
}

/** Records that the current request wrote through `db`, so its answer carries a consistency token. */
export function noteWrite(set: WrittenPrimary | undefined): void {
  if (!set) return;
  const store = storage.getStore();
  if (!store) return;
  store.wrote = set;
  // The rest of the request reads what it wrote.
  store.primaryOnly = true;
}

/** Parses a PostgreSQL LSN (`16/B374D848`) into a number, or undefined when it is not one. */
export function parseLsn(text: string): Lsn | undefined {
  if (text.length > 17) return undefined;
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : undefined;
}
