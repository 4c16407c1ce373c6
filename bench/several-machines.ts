import type { Knex } from 'knex';
import knexFactory from 'knex';
import { CrudRepository, useReplicas } from '@crudsmith/core';
import { clusterMissing, startPgCluster } from '../test/fixtures/pg-cluster';
import { CATEGORIES, createItems, Item, prng, seedItems } from './lib/items';
import { compare, fromEnv, type Operation } from './lib/measure';
import type { Suite } from './lib/suite';
import { formatOps, formatTable } from './lib/table';

// The same repository reads on a private PostgreSQL (test/fixtures/pg-cluster.ts: a primary,
// a streaming replica and PgBouncer on loopback ports of their own), through PgBouncer in
// transaction mode and with reads on the replica, each as a ratio to the same reads on a
// direct connection to the primary. Needs Debian's pgbouncer and PostgreSQL 15's binaries;
// skipped (with a line saying why) without them.

const ROWS = fromEnv('BENCH_POOLED_ROWS', 20_000);

interface PooledRow {
  scenario: string;
  operation: string;
  ours: number;
  direct: number;
  ratio: number;
  range: [number, number];
}

function reads(knex: Knex): { list: Operation; get: Operation } {
  const repo = new CrudRepository(Item);
  const random = prng(7);
  let n = 0;
  return {
    list: () =>
      repo.getMulti(knex, {
        filters: { category: `c${n++ % CATEGORIES}`, price__gte: 10 },
        sortColumns: ['price'],
        sortOrders: ['desc'],
        offset: 40,
        limit: 20,
      }),
    get: () => repo.get(knex, { id: 1 + Math.floor(random() * ROWS) }),
  };
}

export const severalMachinesSuite: Suite<PooledRow> = {
  name: 'several-machines',
  async run() {
    const missing = clusterMissing();
    if (missing) {
      console.log(`  skipped: ${missing}`);
      return [];
    }
    const cluster = await startPgCluster();
    const opened: Knex[] = [];
    const open = (url: string) => {
      const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 2, max: 4 } });
      opened.push(knex);
      return knex;
    };
    const rows: PooledRow[] = [];
    try {
      const database = await cluster.createDatabase();
      const direct = open(cluster.on(cluster.primaryUrl, database));
      await createItems(direct);
      await seedItems(direct, ROWS);
      await direct.raw('VACUUM ANALYZE items');
      // The replica applies WAL two seconds late: let it catch up before reading there.
      await new Promise((done) => setTimeout(done, 3000));
      const replicated = open(cluster.on(cluster.primaryUrl, database));
      useReplicas(replicated, [open(cluster.on(cluster.replicaUrl, database))], { refreshMs: 200 });
      const scenarios = [
        { scenario: 'PgBouncer, transaction mode', knex: open(cluster.on(cluster.transactionPoolUrl, database)) },
        { scenario: 'reads on a replica', knex: replicated },
      ];
      const base = reads(direct);
      for (const { scenario, knex } of scenarios) {
        const ours = reads(knex);
        await ours.get();
        await new Promise((done) => setTimeout(done, 300));
        for (const [operation, a, b] of [
          ['getMulti 20 + count', ours.list, base.list],
          ['get by id', ours.get, base.get],
        ] as const) {
          const result = await compare(a, b);
          console.log(`  ${scenario}: ${operation}: ratio ${result.ratio.toFixed(2)}`);
          rows.push({
            scenario,
            operation,
            ours: result.crudsmith,
            direct: result.knex,
            ratio: result.ratio,
            range: result.ratioRange,
          });
        }
      }
    } finally {
      await Promise.all(opened.map((knex) => knex.destroy()));
      cluster.stop();
    }
    return rows;
  },
  table(rows) {
    return formatTable(
      [
        { title: 'scenario', value: (r: PooledRow) => r.scenario },
        { title: 'operation', value: (r: PooledRow) => r.operation },
        { title: 'ops/s', value: (r: PooledRow) => formatOps(r.ours), right: true },
        { title: 'direct ops/s', value: (r: PooledRow) => formatOps(r.direct), right: true },
        { title: 'ratio', value: (r: PooledRow) => r.ratio.toFixed(2), right: true },
        { title: 'middle half', value: (r: PooledRow) => `${r.range[0].toFixed(2)}–${r.range[1].toFixed(2)}` },
      ],
      rows,
    );
  },
};
