// A client that goes away mid-export stops it: no page is read after the stream is
// destroyed, and the pages read before are only those the socket could take. One adapter
// and engine: the stream and its end are core's, which every adapter destroys on close.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crudRouter, routesOf } from '@crudsmith/core';
import { koaHarness } from '../adapters/koa-harness';
import type { MountedServer } from '../adapters/conformance';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';

const ROWS = 800;
const PAGE = 10;

describe(`export on ${ENGINES[0]}: a client that disconnects`, () => {
  let db: TestDatabase;
  let server: MountedServer;
  const logged: unknown[] = [];

  beforeAll(async () => {
    db = await openDatabase(ENGINES[0]);
    await createSchema(db.knex);
    // 800 rows of 16 KB: 12.8 MB, far more than the socket buffers (loopback's too) hold.
    const description = 'x'.repeat(16_384);
    const rows = Array.from({ length: ROWS }, (_, i) => ({ name: `n${i}`, description, created_at: new Date() }));
    for (let i = 0; i < ROWS; i += 100) await db.knex('items').insert(rows.slice(i, i + 100));
    const router = crudRouter({
      session: db.knex,
      model: Item,
      path: '/items',
      includedMethods: ['export'],
      export: { pageSize: PAGE },
    });
    server = await koaHarness.mount(routesOf(router), {
      prefix: '',
      logger: { error: (_message, error) => void logged.push(error) },
    });
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  it('reads no more pages once it is gone', async () => {
    const pages: string[] = [];
    const count = (query: { sql: string }) => {
      if (/from .items./i.test(query.sql)) pages.push(query.sql);
    };
    db.knex.on('query', count);
    try {
      const abort = new AbortController();
      const res = await fetch(`${server.url}/items/export?format=ndjson`, { signal: abort.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      abort.abort();
      // Settled: the count stays the same across several turns of the server's stream.
      let seen = -1;
      await vi.waitFor(
        () => {
          const now = pages.length;
          const settled = now === seen;
          seen = now;
          if (!settled) throw new Error('still reading');
        },
        { interval: 50, timeout: 5000 },
      );
      expect(pages.length).toBeGreaterThan(0);
      expect(pages.length).toBeLessThan(ROWS / PAGE / 2);
    } finally {
      db.knex.off('query', count);
    }
  });

  it('reports nothing, through the app or its logger, and keeps serving', async () => {
    // Koa reports to the app's error event, which logs to the console when no one listens.
    const consoleError = vi.spyOn(console, 'error');
    try {
      const abort = new AbortController();
      const res = await fetch(`${server.url}/items/export?format=csv`, { signal: abort.signal });
      expect((await res.body!.getReader().read()).done).toBe(false);
      abort.abort();
      // A later export runs to the end: by then the stopped one has been torn down.
      const next = await fetch(`${server.url}/items/export?format=ndjson&name=n1`);
      expect(await next.text()).toContain('"name":"n1"');
      expect(consoleError).not.toHaveBeenCalled();
      expect(logged).toEqual([]);
    } finally {
      consoleError.mockRestore();
    }
  });
});
