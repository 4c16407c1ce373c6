// The CRUD suite's data on a private PostgreSQL primary with a plain streaming replica (no
// apply delay), the generated reads sent to the replica by `useReplicas`. The suite writes
// its fixtures straight to the primary and reads at once; its client does what a client
// needing current reads does: before each request it waits until the replica has replayed
// the primary's WAL up to now (so fixture writes are there), and it sends back the
// consistency token of its last write through the API (read-your-writes). Every query the
// replica's knex runs is counted, to prove the reads were served there.
import knexFactory, { type Knex } from 'knex';
import { useReplicas } from '@crudsmith/core';
import { startPgCluster, type PgCluster, type PgClusterMode } from '../fixtures/pg-cluster';
import type { CrudBackend } from './kit';

/** Plain streaming replication: no apply delay, no PgBouncer. */
export const STREAMING: PgClusterMode = { applyDelay: false, poolers: false };

const TOKEN = 'crudsmith-consistency';

/** A backend on a streaming replica, and what it saw. */
export interface ReplicaBackend extends CrudBackend {
  /** The primary's and the replica's knex (valid once opened). */
  readonly primary: Knex;
  readonly replica: Knex;
  /** Statements the routed reads ran on the replica. */
  readonly replicaReads: string[];
  /** Requests sent. */
  readonly requests: number;
}

/** A backend whose `open` starts the cluster; the database's `destroy` stops it. */
export function streamingReplica(): ReplicaBackend {
  let cluster: PgCluster | undefined;
  let primary: Knex | undefined;
  let replica: Knex | undefined;
  // Its own connection, so its polls are not counted as reads.
  let watcher: Knex | undefined;
  let synced = '';
  let token: string | undefined;
  let requests = 0;
  const replicaReads: string[] = [];

  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the replica backend opens in beforeAll');
    return value;
  };

  /** Waits until the replica has replayed everything the primary has committed so far. */
  async function caughtUp(): Promise<void> {
    // Commits are flushed (synchronous_commit on), so the flush position covers each of
    // them; records after the last commit may stay unflushed, and unshipped, indefinitely.
    const { rows } = (await need(primary).raw('select pg_current_wal_flush_lsn()::text as lsn')) as {
      rows: { lsn: string }[];
    };
    const lsn = rows[0].lsn;
    if (lsn === synced) return;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const replayed = (await need(watcher).raw('select pg_last_wal_replay_lsn() >= ?::pg_lsn as ok', [lsn])) as {
        rows: { ok: boolean }[];
      };
      if (replayed.rows[0].ok) break;
      if (Date.now() > deadline) throw new Error(`the replica did not replay ${lsn} within 10 s`);
      await new Promise((done) => setTimeout(done, 5));
    }
    synced = lsn;
  }

  return {
    get primary() {
      return need(primary);
    },
    get replica() {
      return need(replica);
    },
    replicaReads,
    get requests() {
      return requests;
    },
    async open() {
      cluster = await startPgCluster(STREAMING);
      const name = cluster.database;
      const open = (url: string) =>
        knexFactory({ client: 'pg', connection: cluster!.on(url, name), pool: { min: 0, max: 4 } });
      primary = open(cluster.primaryUrl);
      replica = open(cluster.replicaUrl);
      watcher = open(cluster.replicaUrl);
      // The rule's own probe of the replica's position is not a read.
      replica.on('query', (query: { sql: string }) => {
        if (!query.sql.includes('pg_last_wal_replay_lsn')) replicaReads.push(query.sql);
      });
      useReplicas(primary, [replica], { refreshMs: 0 });
      return {
        engine: 'postgres',
        knex: primary,
        async destroy() {
          await Promise.all([primary, replica, watcher].map((knex) => knex?.destroy()));
          cluster?.stop();
        },
      };
    },
    async headers() {
      requests++;
      await caughtUp();
      const headers: Record<string, string> = {};
      if (token) headers[TOKEN] = token;
      return headers;
    },
    seen(headers) {
      token = headers.get(TOKEN) ?? token;
    },
  };
}
