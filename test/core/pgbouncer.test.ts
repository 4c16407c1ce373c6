// PostgreSQL behind a real PgBouncer (Debian's, with its default settings: no
// ignore_startup_parameters), in transaction and in session mode: crudsmith connects, its
// statement timeout still stops a statement on the server, and its prepared statements
// never fail a query, in or out of a transaction.
import 'reflect-metadata';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrudRepository, DatabaseUnavailableError, withDatabaseTimeouts } from '@crudsmith/core';
import { ENGINES } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';
import { clusterWanted, startPgCluster, type PgCluster } from '../fixtures/pg-cluster';
import { seedItems } from '../fixtures/seed';
import { spawnApp, type AppProcess } from '../example/spawn-app';

const wanted = clusterWanted(ENGINES);
if (!wanted) it.skip('needs PostgreSQL in CRUDSMITH_DATABASES, pgbouncer and the PostgreSQL binaries', () => {});

describe.runIf(wanted)('behind PgBouncer', () => {
  let cluster: PgCluster;
  let database: string;
  const opened: Knex[] = [];
  const open = (url: string, statementMs = 30_000) => {
    const knex = knexFactory(
      withDatabaseTimeouts(
        { client: 'pg', connection: cluster.on(url, database), pool: { min: 0, max: 8 } },
        { statementMs },
      ),
    );
    opened.push(knex);
    return knex;
  };

  beforeAll(async () => {
    cluster = await startPgCluster({ replica: false });
    database = cluster.database;
    const direct = knexFactory({ client: 'pg', connection: cluster.on(cluster.primaryUrl, database) });
    await createSchema(direct);
    await seedItems(direct);
    await direct.destroy();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((knex) => knex.destroy()));
    cluster?.stop();
  });

  describe.each(['transaction', 'session'] as const)('in %s mode', (mode) => {
    it('connects with the default settings and serves reads and writes, in and out of transactions, many at once', async () => {
      const knex = open(mode === 'transaction' ? cluster.transactionPoolUrl : cluster.sessionPoolUrl);
      const items = new CrudRepository(Item, { isDeletedColumn: 'is_deleted' });
      const runs = Array.from({ length: 200 }, async (_, i) => {
        if (i % 4 === 0) {
          return knex.transaction(async (trx) => {
            await items.get(trx, { id: 1 + (i % 5) });
            await items.getMulti(trx, { filters: { category: 'tools' }, sortColumns: ['price'], sortOrders: ['desc'] });
            return items.update(trx, { price: i }, { filters: { id: 1 + (i % 5) } });
          });
        }
        if (i % 4 === 1)
          return items.getMulti(knex, { filters: { category: 'tools' }, sortColumns: ['price'], sortOrders: ['desc'] });
        return items.get(knex, { id: 1 + (i % 5) });
      });
      const outcomes = await Promise.allSettled(runs);
      expect(
        outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason)),
      ).toEqual([]);
    });
  });

  it('cancels a statement blocked by a row lock on the server within statementMs + 1 s through transaction pooling, and the lock holder commits', async () => {
    const knex = open(cluster.transactionPoolUrl, 1500);
    const holder = new pg.Client({ connectionString: cluster.on(cluster.primaryUrl, database) });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query("update items set name = 'held' where id = 2");
      const started = Date.now();
      const error = await knex('items')
        .where('id', 2)
        .update({ name: 'blocked' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      const ms = Date.now() - started;
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as DatabaseUnavailableError).status).toBe(503);
      expect(ms).toBeGreaterThanOrEqual(1400);
      expect(ms).toBeLessThan(2500);
      // The server stopped the statement too: nothing waits on the lock any more.
      let waiting = 1;
      for (let tries = 0; tries < 20 && waiting > 0; tries++) {
        await new Promise((done) => setTimeout(done, 100));
        waiting = (
          await holder.query(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
          )
        ).rows[0].n;
      }
      expect(waiting).toBe(0);
      await holder.query('commit');
      expect((await holder.query('select name from items where id = 2')).rows[0].name).toBe('held');
      // And the pooled knex serves on.
      expect((await knex('items').where('id', 2).first()).name).toBe('held');
    } finally {
      await holder.end();
    }
  });

  describe('the example app', () => {
    let app: AppProcess | undefined;
    afterAll(() => app?.stop());

    it('answers a mixed load of 3,000 requests from 32 clients in transaction mode without a single 5xx', async () => {
      const name = await cluster.createDatabase();
      app = await spawnApp(
        {
          DATABASE_URL: cluster.on(cluster.transactionPoolUrl, name),
          LOG_LEVEL: 'warn',
          DEFAULT_RATE_LIMIT_LIMIT: '1000000000',
        },
        60_000,
      );
      const base = `${app.url}/api/v1/items`;
      const statuses = new Map<number, number>();
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // Lists answered without their count.
      let uncounted = 0;
      const json = { 'content-type': 'application/json' };
      const client = async (c: number) => {
        const ids: number[] = [];
        for (let r = 0; r < 95; r++) {
          const kind = r % 4;
          let res: Response;
          if (kind === 0 || ids.length === 0) {
            res = await fetch(base, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ name: `load ${c}.${r}`, category: `c${c % 4}`, price: r }),
            });
            if (res.status === 201) ids.push(((await res.json()) as { id: number }).id);
            else await res.arrayBuffer();
          } else if (kind === 1) {
            res = await fetch(`${base}?category=c${c % 4}&price__gte=3&sort=-price&itemsPerPage=10`);
            const body = (await res.json()) as { total_count?: unknown };
            if (typeof body.total_count !== 'number') uncounted++;
          } else if (kind === 2) {
            res = await fetch(`${base}/${ids[r % ids.length]}`);
            await res.arrayBuffer();
          } else {
            res = await fetch(`${base}/${ids[r % ids.length]}`, {
              method: 'PATCH',
              headers: json,
              body: JSON.stringify({ price: r + 0.5 }),
            });
            await res.arrayBuffer();
          }
          count(res.status);
        }
      };
      await Promise.all(Array.from({ length: 32 }, (_, c) => client(c)));
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(3000);
      expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
      // And every request did what it asked: created, listed, read or updated.
      expect([...statuses.keys()].filter((status) => status !== 200 && status !== 201)).toEqual([]);
      expect(uncounted).toBe(0);
      expect(app.output()).not.toMatch(/42P05|26000|prepared statement/);
    }, 120_000);
  });
});
