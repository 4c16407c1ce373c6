import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, mapDatabaseError, withDatabaseTimeouts } from '@crudsmith/core';
import { openDatabase, SERVER_ENGINES, type TestDatabase } from '../fixtures/db';
import { TcpProxy } from '../fixtures/tcp-proxy';

// withDatabaseTimeouts on the real servers: a statement past its bound, a connection that
// cannot be opened and a transaction cut off each end in a DatabaseUnavailableError on
// time, and the same knex serves again without being recreated.
// A run without a database server (a local SQLite-only run) says so instead of finding no test.
if (SERVER_ENGINES.length === 0) it.skip('needs PostgreSQL or MariaDB in CRUDSMITH_DATABASES', () => {});
const SLEEP = { postgres: 'select pg_sleep(3)', mysql: 'select sleep(3)' } as Record<string, string>;

async function failure(run: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

describe.runIf(SERVER_ENGINES.length > 0).each(SERVER_ENGINES)('withDatabaseTimeouts on %s', (engine) => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let knex: Knex;

  beforeAll(async () => {
    db = await openDatabase(engine);
    const url = new URL(db.url!);
    proxy = await TcpProxy.start({
      host: url.hostname,
      port: Number(url.port || (engine === 'postgres' ? 5432 : 3306)),
    });
    const connection = {
      host: '127.0.0.1',
      port: proxy.port,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
    };
    knex = knexFactory(
      withDatabaseTimeouts(
        { client: engine === 'postgres' ? 'pg' : 'mysql2', connection, pool: { min: 0, max: 2 } },
        { connectMs: 800, acquireMs: 1200, statementMs: 800 },
      ),
    );
    await knex.schema.createTable('ledger', (t) => {
      t.increments('id');
      t.string('note');
    });
  });
  afterAll(async () => {
    await proxy?.set('forward');
    await knex?.destroy();
    await proxy?.close();
    await db?.destroy();
  });

  it('ends a statement past statementMs with a DatabaseUnavailableError, and the next one runs', async () => {
    const { error, ms } = await failure(knex.raw(SLEEP[engine]));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(ms).toBeLessThan(2500);
    expect((await knex('ledger').count({ n: '*' }))[0]).toBeDefined();
  });

  it('ends a transaction cut off mid-way on time, leaves none of its rows, and serves again once the route is back', async () => {
    const { error, ms } = await failure(
      knex.transaction(async (trx) => {
        await trx('ledger').insert({ note: 'first half' });
        await proxy.set('silent');
        await trx('ledger').insert({ note: 'second half' });
      }),
    );
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(ms).toBeLessThan(5000);
    // Still cut: a fresh connection cannot be opened either, within connectMs.
    const cut = await failure(knex.raw('select 1'));
    expect(cut.error).toBeInstanceOf(DatabaseUnavailableError);
    expect(cut.ms).toBeLessThan(4000);
    await proxy.set('forward');
    expect(await knex('ledger').whereIn('note', ['first half', 'second half'])).toEqual([]);
  });

  it('ends reads and writes on a server gone silent within 5 s by the default unresponsive bound (4 s), not the 30 s statement timeout, and serves again once it answers', async () => {
    const url = new URL(db.url!);
    const connection = {
      host: '127.0.0.1',
      port: proxy.port,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
    };
    const patient = knexFactory(
      withDatabaseTimeouts({ client: engine === 'postgres' ? 'pg' : 'mysql2', connection, pool: { min: 0, max: 4 } }),
    );
    try {
      // Pooled connections open before the cut, so the queries go out on them and meet silence.
      await Promise.all([patient.raw('select 1'), patient.raw('select 1')]);
      await proxy.set('silent');
      const [read, write] = await Promise.all([
        failure(patient('ledger').select()),
        failure(patient('ledger').insert({ note: 'silent' })),
      ]);
      for (const { error, ms } of [read, write]) {
        expect(error).toBeInstanceOf(DatabaseUnavailableError);
        expect((error as DatabaseUnavailableError).status).toBe(503);
        expect(ms).toBeLessThan(5000);
      }
      await proxy.set('forward');
      expect(await patient('ledger').where('note', 'silent').select()).toEqual([]);
    } finally {
      await proxy.set('forward');
      await patient.destroy();
    }
  }, 20_000);

  it('lets a slow statement on a live server run past the unresponsive bound, up to its statement timeout', async () => {
    const slow = knexFactory(
      withDatabaseTimeouts(
        { client: engine === 'postgres' ? 'pg' : 'mysql2', connection: db.url!, pool: { min: 0, max: 2 } },
        { unresponsiveMs: 1000, statementMs: 5000 },
      ),
    );
    try {
      const started = Date.now();
      await slow.raw(SLEEP[engine]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    } finally {
      await slow.destroy();
    }
  });

  it('answers 503 within acquireMs when every pooled connection is busy, and serves once one is free', async () => {
    const small = knexFactory(
      withDatabaseTimeouts(
        { client: engine === 'postgres' ? 'pg' : 'mysql2', connection: db.url!, pool: { min: 0, max: 1 } },
        { acquireMs: 700, statementMs: 5000 },
      ),
    );
    try {
      const busy = small.raw(SLEEP[engine]).then((result) => result);
      await new Promise((done) => setTimeout(done, 200));
      const { error, ms } = await failure(small.raw('select 1'));
      // knex's own acquire timeout, which every route renders as this 503.
      expect(mapDatabaseError(error)).toBeInstanceOf(DatabaseUnavailableError);
      expect(ms).toBeLessThan(1500);
      await busy;
      await small.raw('select 1');
    } finally {
      await small.destroy();
    }
  });

  it('answers a refused connection with a DatabaseUnavailableError at once', async () => {
    await proxy.set('refuse');
    const { error, ms } = await failure(knex.raw('select 1'));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(ms).toBeLessThan(1500);
    await proxy.set('forward');
    await knex.raw('select 1');
  });
});
