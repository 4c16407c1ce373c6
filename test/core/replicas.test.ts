// The replica rule in the repository, on a private primary and a streaming replica that
// applies WAL two seconds late: reads outside transactions go to the replica, reads in a
// transaction or under readFromPrimary to the primary, and a replica lagging past
// maxLagMs is skipped.
import 'reflect-metadata';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createRegistry, CrudRepository, readFromPrimary, useReplicas } from '@crudsmith/core';
import { ENGINES } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';
import { clusterWanted, startPgCluster, type PgCluster } from '../fixtures/pg-cluster';

const wanted = clusterWanted(ENGINES);
if (!wanted) it.skip('needs PostgreSQL in CRUDSMITH_DATABASES, pgbouncer and the PostgreSQL binaries', () => {});
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.runIf(wanted)('reads on a replica', () => {
  let cluster: PgCluster;
  const opened: Knex[] = [];
  const items = new CrudRepository(Item, { isDeletedColumn: 'is_deleted' });
  let database: string;
  const open = (url: string) => {
    const knex = knexFactory({ client: 'pg', connection: cluster.on(url, database), pool: { min: 0, max: 4 } });
    opened.push(knex);
    return knex;
  };

  beforeAll(async () => {
    // The schema is there before the replica is copied: no wait for the replica to apply it.
    cluster = await startPgCluster({
      prepare: async (url) => {
        const knex = knexFactory({ client: 'pg', connection: url });
        await createSchema(knex).finally(() => knex.destroy());
      },
    });
    database = cluster.database;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((knex) => knex.destroy()));
    cluster?.stop();
  });

  /** A primary with the replica, once the rule has seen the replica's state. */
  async function routed(maxLagMs?: number): Promise<Knex> {
    const primary = open(cluster.primaryUrl);
    useReplicas(primary, [open(cluster.replicaUrl)], { maxLagMs, refreshMs: 100 });
    await items.count(primary);
    await pause(300);
    await items.count(primary);
    return primary;
  }

  it('sends gets, lists and counts to the replica, and reads in a transaction or under readFromPrimary to the primary', async () => {
    const primary = await routed();
    const created = await items.create(primary, { name: 'fresh', category: 'r1' });
    // Two seconds before the replica applies it.
    expect(await items.get(primary, { id: created.id })).toBeNull();
    expect(await items.count(primary, { category: 'r1' })).toBe(0);
    expect((await items.getMulti(primary, { filters: { category: 'r1' } })).total_count).toBe(0);
    expect(await primary.transaction((trx) => items.get(trx, { id: created.id }))).toMatchObject({ name: 'fresh' });
    expect(await readFromPrimary(() => items.count(primary, { category: 'r1' }))).toBe(1);
    await cluster.caughtUp();
    expect(await items.get(primary, { id: created.id })).toMatchObject({ name: 'fresh' });
  });

  it('is what compile({ session, replicas }) installs, which refuses replicas beside a session dependency', async () => {
    const primary = open(cluster.primaryUrl);
    createRegistry().compile({
      session: primary,
      replicas: [open(cluster.replicaUrl)],
      replicaOptions: { refreshMs: 100 },
    });
    await items.count(primary);
    await pause(300);
    const created = await items.create(primary, { name: 'compiled', category: 'r3' });
    // Two seconds before the replica applies it: the read went there.
    expect(await items.get(primary, { id: created.id })).toBeNull();
    expect(() => createRegistry().compile({ session: () => primary, replicas: [primary] })).toThrow(ConfigurationError);
  });

  it('skips a replica lagging past maxLagMs', async () => {
    const primary = await routed(500);
    // Writes keep the replica two seconds behind: past the bound, so reads stay on the primary.
    await items.create(primary, { name: 'warm', category: 'r2' });
    await pause(600);
    await items.count(primary);
    const created = await items.create(primary, { name: 'lagged', category: 'r2' });
    await pause(200);
    await items.count(primary);
    await pause(200);
    expect(await items.get(primary, { id: created.id })).toMatchObject({ name: 'lagged' });
  });
});
