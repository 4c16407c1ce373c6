import type { Knex } from 'knex';
import { isDatabaseUnreachable } from '../errors/database-error';
import { HttpError } from '../errors/http-error';
import { currentConsistency, parseLsn, type Lsn } from './consistency';
import { withConsistencyToken } from './consistency-token';
import { setRouteWrapper } from '../http/route-wrapper';

// PostgreSQL read replicas behind a primary knex. The repository's reads (gets, lists,
// counts, cursors) outside a transaction go to a replica that is up, whose replay lag is
// within `maxLagMs`, and, when the request carries a consistency token (the primary's WAL
// position after the client's last write), that has replayed past it; otherwise to the
// primary. Writes, transactions and the app's own queries stay on the primary.
//
// What is known of each replica (its replayed position and lag) is asked in the background,
// at most once per `refreshMs`, by the reads themselves: a read never waits for it. A
// replica that cannot be asked, or fails a read as unreachable, is left out until the next
// refresh finds it again, and a read a replica fails for any reason but a bad request runs
// again on the primary: losing a replica is never a 503.

/** How reads use the replicas; every field optional. */
export interface ReplicaOptions {
  /** Largest replay lag, in ms, at which a replica still serves reads (default 10000). */
  maxLagMs?: number;
  /** Least time between two asks of one replica's position, in ms (default 1000). */
  refreshMs?: number;
}

/** The defaults of `ReplicaOptions`. */
export const DEFAULT_REPLICA_OPTIONS: Required<ReplicaOptions> = { maxLagMs: 10_000, refreshMs: 1000 };

// Replayed position, and lag: none when the replica has replayed all it received, else the
// age of the last transaction it replayed.
const STATE_SQL = `select pg_last_wal_replay_lsn()::text as lsn,
  case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
       else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 0) end as lag_ms`;

class Replica {
  up = false;
  lsn: Lsn = 0n;
  lagMs = Infinity;
  private askedAt = 0;
  private asking = false;

  constructor(
    readonly knex: Knex,
    private readonly options: Required<ReplicaOptions>,
  ) {}

  /** Asks the replica its position when the last answer is older than refreshMs; never waits, never throws. */
  refresh(now: number): void {
    if (this.asking || now - this.askedAt < this.options.refreshMs) return;
    this.asking = true;
    this.askedAt = now;
    this.knex
      .raw(STATE_SQL)
      .then(
        (result: { rows: { lsn: string | null; lag_ms: number | string }[] }) => {
          const row = result.rows[0];
          this.up = row?.lsn != null;
          this.lsn = row?.lsn != null ? (parseLsn(row.lsn) ?? 0n) : 0n;
          this.lagMs = Number(row?.lag_ms ?? Infinity);
        },
        () => {
          this.up = false;
        },
      )
      .finally(() => {
        this.asking = false;
      });
  }

  /** Whether this replica may serve a read that must see `after`. */
  serves(after: Lsn | undefined): boolean {
    return this.up && this.lagMs <= this.options.maxLagMs && (after === undefined || this.lsn >= after);
  }

  /** Left out after a failed read, until a refresh finds it again. */
  lost(): void {
    this.up = false;
    this.askedAt = 0;
  }
}

/** A primary's replicas, and the rule that picks one for a read. */
export class ReplicaSet {
  private readonly replicas: Replica[];
  private next = 0;

  constructor(
    readonly primary: Knex,
    replicas: Knex[],
    options: ReplicaOptions = {},
  ) {
    const o = {
      ...DEFAULT_REPLICA_OPTIONS,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    };
    for (const [name, value] of Object.entries(o)) {
      if (!Number.isSafeInteger(value) || value < 0)
        throw new RangeError(`${name} must be a whole number of milliseconds, got ${value}`);
    }
    this.replicas = replicas.map((knex) => new Replica(knex, o));
  }

  /** The replica for a read that must see `after` (undefined: any), or undefined for the primary. */
  pick(after: Lsn | undefined): Replica | undefined {
    const now = Date.now();
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) this.replicas[i].refresh(now);
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count];
      if (replica.serves(after)) {
        this.next = (this.next + i + 1) % count;
        return replica;
      }
    }
    return undefined;
  }

  /** The primary's current WAL position: what a read must see to see this client's writes. */
  async position(): Promise<string> {
    // The insert position, not the write position (`pg_current_wal_lsn`): under
    // `synchronous_commit = off` a commit returns before its record is written, so the
    // write position can still be short of it, and a replica past that token would not
    // have the write yet. The insert position may be past records not flushed yet (they
    // ship with the next commit): until then the token's reads stay on the primary, which is safe.
    const result = (await this.primary.raw('select pg_current_wal_insert_lsn()::text as lsn')) as {
      rows: { lsn: string }[];
    };
    return result.rows[0].lsn;
  }
}

// By knex configuration: a transaction's knex shares its primary's, and is never routed.
const sets = new WeakMap<object, ReplicaSet>();
let registered = 0;

/**
 * Sends the repository's reads on `primary` (outside transactions) to `replicas`, under the
 * rule above. PostgreSQL only; call once per primary knex, before serving.
 */
export function useReplicas(primary: Knex, replicas: Knex[], options: ReplicaOptions = {}): void {
  if (replicas.length === 0) return;
  const name = String((primary.client as { config?: { client?: unknown } }).config?.client ?? '');
  const driver = (primary.client as { driverName?: string }).driverName;
  if (driver !== 'pg' && !/^(pg|postgres|postgresql)$/.test(name))
    throw new TypeError('Read replicas need PostgreSQL (knex client pg)');
  if (sets.has(primary.client.config)) return;
  sets.set(primary.client.config, new ReplicaSet(primary, replicas, options));
  registered++;
  // From now on every request carries its consistency token in and out.
  setRouteWrapper(withConsistencyToken);
}

/** The replica set a knex belongs to (itself or as a transaction of its primary). */
export function replicaSetOf(db: Knex): ReplicaSet | undefined {
  return registered === 0 ? undefined : sets.get(db.client.config);
}

/**
 * Runs a read on the knex the rule picks for `db`: a replica, or `db` itself (in a
 * transaction, without replicas, when the request asked for the primary, or when no
 * replica qualifies). A replica failing as unreachable is left out and the read runs
 * again on `db`.
 */
export function onReader<T>(db: Knex, read: (reader: Knex) => Promise<T>): Promise<T> {
  if (registered === 0 || db.isTransaction) return read(db);
  const set = sets.get(db.client.config);
  if (!set) return read(db);
  const consistency = currentConsistency();
  if (consistency?.primaryOnly) return read(db);
  const replica = set.pick(consistency?.after);
  if (!replica) return read(db);
  return read(replica.knex).catch((error: unknown) => {
    // The client's own mistake (a bad value) fails the same on the primary.
    if (error instanceof HttpError && error.status < 500) throw error;
    // Anything else runs again on the primary: a replica gone, a statement cancelled by
    // recovery, or a table a lagging replica does not have yet.
    if (isDatabaseUnreachable(error) || isDatabaseUnreachable((error as { cause?: unknown })?.cause)) replica.lost();
    return read(db);
  });
}
