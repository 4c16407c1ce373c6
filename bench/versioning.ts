import type { Server } from 'node:http';
import { deepStrictEqual } from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { bootstrap, crudRouter, type RouteDescriptor } from '@crudsmith/core';
import { versioning } from '@crudsmith/versioning';
import { openSqlite } from './lib/db';
import { createItems, Item, seedItems } from './lib/items';
import { handlerReader, httpReader, listen } from './lib/item-readers';
import { fromEnv, median, quantile, type Comparison, type Operation } from './lib/measure';
import type { ResultRow, Suite } from './lib/suite';

// What the versioning plugin costs on a read: GET /api/v2/items/{id} served through
// versioning() (v1 deprecated beside it, so its after hook runs on every route, and its
// fallback is mounted) against the same route mounted at the same path by hand, same
// database, same run: over real HTTP on Koa, and in process (the bootstrapped route's
// handler called with a neutral request), where the machine's noise is smaller and the
// plugin's own per-request cost shows. In the table, "crudsmith" is the versioned app and
// "knex" the one without the plugin. Target: ratio ≥ 0.97. BENCH_VERSIONING_REQUESTS sets
// how many requests each side makes over HTTP (four times as many in process).

const ROWS = 1000;

function itemsRoutes(knex: Parameters<typeof crudRouter>[0]['session']): RouteDescriptor[] {
  return crudRouter({ session: knex, model: Item, path: '/items', includedMethods: ['read', 'readMulti'] }).routes;
}

/**
 * Times the two sides one request at a time, alternating (A B, B A, ...), so load from
 * elsewhere on the machine falls on both within microseconds: the plugin's cost is a few
 * microseconds on a request of a few hundred, well below what whole 300 ms rounds resolve
 * on a busy machine. ops/s are from the median request time; the ratio is per block of
 * requests (the median block, and the middle half of the blocks).
 */
async function interleaved(ours: Operation, theirs: Operation, requests: number): Promise<Comparison> {
  const time = async (op: Operation) => {
    const start = performance.now();
    await op();
    return performance.now() - start;
  };
  for (let i = 0; i < Math.min(500, requests / 4); i++) await Promise.all([ours(), theirs()]);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < requests; i++) {
    if (i % 2 === 0) {
      a.push(await time(ours));
      b.push(await time(theirs));
    } else {
      b.push(await time(theirs));
      a.push(await time(ours));
    }
  }
  const blocks = 40;
  const size = Math.floor(requests / blocks);
  const ratios = Array.from({ length: blocks }, (_, k) => median(b.slice(k * size, (k + 1) * size)) / median(a.slice(k * size, (k + 1) * size)));
  return { crudsmith: 1000 / median(a), knex: 1000 / median(b), ratio: median(ratios), ratioRange: [quantile(ratios, 0.25), quantile(ratios, 0.75)] };
}




export const versioningSuite: Suite = {
  name: 'versioning',
  async run() {
    const db = await openSqlite();
    const servers: Server[] = [];
    try {
      await createItems(db.knex);
      await seedItems(db.knex, ROWS);
      const versionedApp = bootstrap({
        plugins: [versioning({
          prefix: '/api',
          versions: [
            { label: 'v1', routers: [itemsRoutes(db.knex)], deprecated: { message: 'Use v2', sunset: '2030-01-01' } },
            { label: 'v2', routers: [itemsRoutes(db.knex)] },
          ],
        })],
      });
      const plainApp = bootstrap({ routers: [itemsRoutes(db.knex).map((route) => ({ ...route, path: `/api/v2${route.path}` }))] });
      const versioned = await listen(versionedApp);
      const plain = await listen(plainApp);
      servers.push(versioned.server, plain.server);
      const ids = (await db.knex('items').where('is_deleted', false).pluck('id')) as number[];
      for (let i = 0; i < 10; i++) deepStrictEqual(await httpReader(versioned.url, '/api/v2/items', ids)(), await httpReader(plain.url, '/api/v2/items', ids)(), 'both apps answer the same item');
      const rows: ResultRow[] = [];
      const requests = fromEnv('BENCH_VERSIONING_REQUESTS', 8000);
      const sides = [
        { operation: 'GET /api/v2/items/{id} over HTTP (Koa)', ours: httpReader(versioned.url, '/api/v2/items', ids), theirs: httpReader(plain.url, '/api/v2/items', ids), requests },
        { operation: 'GET /api/v2/items/{id} in process', ours: handlerReader(versionedApp, '/api/v2/items', ids), theirs: handlerReader(plainApp, '/api/v2/items', ids), requests: requests * 4 },
      ];
      for (const { operation, ours, theirs, requests: n } of sides) {
        const row: ResultRow = { suite: 'versioning', engine: 'sqlite', operation, ...(await interleaved(ours, theirs, n)) };
        console.log(`  sqlite: ${operation}: versioned ÷ plain ${row.ratio.toFixed(3)} (target ≥ 0.97)`);
        rows.push(row);
      }
      return rows;
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await db.close();
    }
  },
};
