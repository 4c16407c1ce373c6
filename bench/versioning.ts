import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { deepStrictEqual } from 'node:assert/strict';
import Koa from 'koa';
import { bootstrap, createRequest, crudRouter, type App, type RouteDescriptor } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { versioning } from '@crudsmith/versioning';
import { openSqlite } from './lib/db';
import { createItems, Item, prng, seedItems } from './lib/items';
import { compare, type Operation } from './lib/measure';
import type { ResultRow, Suite } from './lib/suite';

// What the versioning plugin costs on a read: GET /api/v2/items/{id} served through
// versioning() (v1 deprecated beside it, so its after hook runs on every route, and its
// fallback is mounted) against the same route mounted at the same path by hand, same
// database, same run: over real HTTP on Koa, and in process (the bootstrapped route's
// handler called with a neutral request), where the machine's noise is smaller and the
// plugin's own per-request cost shows. In the table, "crudsmith" is the versioned app and
// "knex" the one without the plugin. Target: ratio ≥ 0.97.

const ROWS = 1000;

function itemsRoutes(knex: Parameters<typeof crudRouter>[0]['session']): RouteDescriptor[] {
  return crudRouter({ session: knex, model: Item, path: '/items', includedMethods: ['read', 'readMulti'] }).routes;
}

/** Calls the app's `GET /api/v2/items/:id` route directly, as an adapter would. */
function handlerReader(app: App, ids: number[]): Operation {
  const route = app.routes.find((r) => r.method === 'GET' && r.path === '/api/v2/items/:id')!;
  const random = prng(11);
  return async () => {
    const id = String(ids[Math.floor(random() * ids.length)]);
    const req = createRequest({ method: 'GET', path: `/api/v2/items/${id}`, params: { id }, query: {}, headers: {}, body: undefined, clientAddress: '127.0.0.1' });
    const result = await route.handler(req);
    if (result.status !== 200) throw new Error(`GET item answered ${result.status}`);
    return result.json;
  };
}

async function listen(app: App): Promise<{ url: string; server: Server }> {
  const koa = new Koa();
  mountRoutes(koa, app.routes, { fallbacks: app.fallbacks });
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Reads a random item of `ids` through `base`, the same ids in the same order on each side. */
function reader(base: string, ids: number[]): Operation {
  const random = prng(11);
  return async () => {
    const res = await fetch(`${base}/api/v2/items/${ids[Math.floor(random() * ids.length)]}`);
    if (res.status !== 200) throw new Error(`GET item answered ${res.status}`);
    return res.json();
  };
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
      for (let i = 0; i < 10; i++) deepStrictEqual(await reader(versioned.url, ids)(), await reader(plain.url, ids)(), 'both apps answer the same item');
      const rows: ResultRow[] = [];
      const sides = [
        { operation: 'GET /api/v2/items/{id} over HTTP (Koa)', ours: reader(versioned.url, ids), theirs: reader(plain.url, ids) },
        { operation: 'GET /api/v2/items/{id} in process', ours: handlerReader(versionedApp, ids), theirs: handlerReader(plainApp, ids) },
      ];
      for (const { operation, ours, theirs } of sides) {
        const row: ResultRow = { suite: 'versioning', engine: 'sqlite', operation, ...(await compare(ours, theirs)) };
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
