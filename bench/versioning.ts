import type { Server } from 'node:http';
import { deepStrictEqual } from 'node:assert/strict';
import { bootstrap, crudRouter, type RouteDescriptor } from '@crudsmith/core';
import { versioning } from '@crudsmith/versioning';
import { openSqlite } from './lib/db';
import { createItems, Item, seedItems } from './lib/items';
import { handlerReader, httpReader, listen } from './lib/item-readers';
import { interleaved } from './lib/interleaved';
import { fromEnv } from './lib/measure';
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

export const versioningSuite: Suite = {
  name: 'versioning',
  async run() {
    const db = await openSqlite();
    const servers: Server[] = [];
    try {
      await createItems(db.knex);
      await seedItems(db.knex, ROWS);
      const versionedApp = bootstrap({
        plugins: [
          versioning({
            prefix: '/api',
            versions: [
              { label: 'v1', routers: [itemsRoutes(db.knex)], deprecated: { message: 'Use v2', sunset: '2030-01-01' } },
              { label: 'v2', routers: [itemsRoutes(db.knex)] },
            ],
          }),
        ],
      });
      const plainApp = bootstrap({
        routers: [itemsRoutes(db.knex).map((route) => ({ ...route, path: `/api/v2${route.path}` }))],
      });
      const versioned = await listen(versionedApp);
      const plain = await listen(plainApp);
      servers.push(versioned.server, plain.server);
      const ids = (await db.knex('items').where('is_deleted', false).pluck('id')) as number[];
      for (let i = 0; i < 10; i++)
        deepStrictEqual(
          await httpReader(versioned.url, '/api/v2/items', ids)(),
          await httpReader(plain.url, '/api/v2/items', ids)(),
          'both apps answer the same item',
        );
      const rows: ResultRow[] = [];
      const requests = fromEnv('BENCH_VERSIONING_REQUESTS', 8000);
      const sides = [
        {
          operation: 'GET /api/v2/items/{id} over HTTP (Koa)',
          ours: httpReader(versioned.url, '/api/v2/items', ids),
          theirs: httpReader(plain.url, '/api/v2/items', ids),
          requests,
        },
        {
          operation: 'GET /api/v2/items/{id} in process',
          ours: handlerReader(versionedApp, '/api/v2/items', ids),
          theirs: handlerReader(plainApp, '/api/v2/items', ids),
          requests: requests * 4,
        },
      ];
      for (const { operation, ours, theirs, requests: n } of sides) {
        const row: ResultRow = {
          suite: 'versioning',
          engine: 'sqlite',
          operation,
          ...(await interleaved(ours, theirs, n)),
        };
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
