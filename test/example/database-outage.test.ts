import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_TIMEOUTS } from '@crudsmith/core';
import { ADAPTERS, type AdapterName } from '../../examples/app/src/server';
import { SERVER_ENGINES, type Engine } from '../fixtures/db';
import { expectUnavailable, timed } from '../fixtures/outage';
import type { Client } from '../plugins/account/fixture';
import { ADMIN_PASSWORD, SHORT_TIMEOUTS, startProxiedExample, type ProxiedExample } from './proxied-example';

// A database outage, staged with a proxy between the example and the real server: refused
// connections and a network cut (the route accepts and goes silent) answer a JSON 503 with
// Retry-After, through generated routes and account sign-in, within the configured
// timeouts, and the same process answers again once the database is back.
// A run without a database server (a local SQLite-only run) says so instead of finding no test.
if (SERVER_ENGINES.length === 0) it.skip('needs PostgreSQL or MariaDB in CRUDSMITH_DATABASES', () => {});
const CASES: [AdapterName, Engine][] = ADAPTERS.flatMap((adapter) =>
  SERVER_ENGINES.map((engine): [AdapterName, Engine] => [adapter, engine]),
);
// The longest a request may wait in an outage: a pooled connection's statement bound, then
// the wait for a fresh connection, with generous room for a loaded machine.
const OUTAGE_BOUND_MS = SHORT_TIMEOUTS.statementMs + SHORT_TIMEOUTS.acquireMs + 4000;

describe.runIf(CASES.length > 0).each(CASES)('example on %s with %s: the database unreachable', (adapter, engine) => {
  let example: ProxiedExample;
  let admin: Client;

  beforeAll(async () => {
    example = await startProxiedExample(engine, adapter);
    admin = example.client();
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  });
  afterEach(async () => {
    await example.proxy.set('forward');
  });
  afterAll(async () => {
    await example?.close();
  });

  async function expectServing(): Promise<void> {
    expect((await example.client().request('GET', '/api/v1/items')).status).toBe(200);
    expect((await example.client().login('admin', ADMIN_PASSWORD)).status).toBe(200);
  }

  it('answers a refused connection with a JSON 503 and Retry-After at once, on a generated route and at sign-in', async () => {
    await expectServing();
    await example.proxy.set('refuse');
    expectUnavailable(await timed(example.client().request('GET', '/api/v1/items')), {
      detail: /database/i,
      boundMs: 3000,
    });
    expectUnavailable(await timed(admin.request('GET', '/api/v1/items/1')), { detail: /database/i, boundMs: 3000 });
    expectUnavailable(await timed(example.client().login('admin', ADMIN_PASSWORD)), {
      detail: /database/i,
      boundMs: 3000,
    });
    await example.proxy.set('forward');
    await expectServing();
  });

  it('answers a network cut with a JSON 503 within the timeouts instead of hanging, on a generated route and at sign-in', async () => {
    await expectServing();
    await example.proxy.set('silent');
    const answers = await Promise.all([
      timed(example.client().request('GET', '/api/v1/items')),
      timed(
        admin.request('POST', '/api/v1/items', {
          json: { name: 'cut', description: 'during the cut' },
          headers: { 'x-csrf-token': admin.jar.get('cs_csrf') ?? '' },
        }),
      ),
      timed(example.client().login('admin', ADMIN_PASSWORD)),
    ]);
    for (const answer of answers) expectUnavailable(answer, { detail: /database/i, boundMs: OUTAGE_BOUND_MS });
    // Still cut: new connections time out as well, within the same bound.
    expectUnavailable(await timed(example.client().request('GET', '/api/v1/items')), {
      detail: /database/i,
      boundMs: OUTAGE_BOUND_MS,
    });
    await example.proxy.set('forward');
    await expectServing();
    // Nothing half-written: the write cut off is either wholly there or not at all.
    const rows = await example.db.knex('items').where({ name: 'cut' });
    expect(rows.length).toBeLessThanOrEqual(1);
  });
});

// With the default bounds (a 30 s statement timeout), a network cut still answers within
// the unresponsive bound (4 s, so a 503 within 5 s): the statement's server is checked on a fresh connection.
describe.runIf(SERVER_ENGINES.length > 0).each(SERVER_ENGINES)(
  'example on koa with %s and the default timeouts: the database gone silent',
  (engine) => {
    let example: ProxiedExample;

    beforeAll(async () => {
      example = await startProxiedExample(engine, 'koa', { timeouts: DEFAULT_DATABASE_TIMEOUTS });
    });
    afterAll(async () => {
      await example?.close();
    });

    it('answers reads and writes with a JSON 503 and Retry-After within 5 s, not the 30 s statement timeout, and serves again without a restart', async () => {
      const client = example.client();
      // Pooled connections open before the cut, so requests meet silence on them.
      await Promise.all([client.request('GET', '/api/v1/items'), client.request('GET', '/api/v1/items?category=x')]);
      await example.proxy.set('silent');
      const answers = await Promise.all([
        timed(client.request('GET', '/api/v1/items')),
        timed(client.request('POST', '/api/v1/items', { json: { name: 'silent write' } })),
      ]);
      for (const answer of answers) expectUnavailable(answer, { detail: /database/i, boundMs: 5000 });
      await example.proxy.set('forward');
      expect((await example.client().request('GET', '/api/v1/items')).status).toBe(200);
    }, 30_000);
  },
);
