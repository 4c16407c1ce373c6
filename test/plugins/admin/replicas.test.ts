// The admin on a private PostgreSQL primary with a streaming replica that applies WAL two
// seconds late, its knex given the replica (`useReplicas`): its lists and dashboard counts
// are read on the replica (a row written straight to the primary shows only once the
// replica applied it), while an admin who just wrote through the admin reads the write at
// once (the consistency cookie sends that read to the primary).
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, useReplicas } from '@crudsmith/core';
import { admin } from '@crudsmith/admin';
import { koaHarness } from '../../adapters/koa-harness';
import type { MountedServer } from '../../adapters/conformance';
import { ENGINES } from '../../fixtures/db';
import { clusterWanted, startPgCluster, type PgCluster, type PgClusterMode } from '../../fixtures/pg-cluster';
import { rowIds } from './areas/pages';
import { ADMIN, adminOptions, appMigrations, Client } from './fixture';

const MODE: PgClusterMode = { poolers: false };
const wanted = clusterWanted(ENGINES, MODE);
if (!wanted) it.skip('needs PostgreSQL in CRUDSMITH_DATABASES and the PostgreSQL binaries', () => {});
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.runIf(wanted)('admin with a read replica', () => {
  let cluster: PgCluster;
  let primary: Knex;
  let replica: Knex;
  let server: MountedServer;
  let close = async () => {};
  // What the replica's knex ran, its state probes left out.
  const replicaReads: string[] = [];

  beforeAll(async () => {
    // The schema, the admin and three rows are there before the replica is copied: no wait
    // for the replica to apply them.
    cluster = await startPgCluster({
      ...MODE,
      prepare: async (url) => {
        const knex = knexFactory({ client: 'pg', connection: url });
        const plugin = admin(adminOptions({ engine: 'postgres', knex, destroy: async () => {} }));
        const app = bootstrap({ plugins: [plugin], migrations: [appMigrations] });
        try {
          await app.start(knex);
          await plugin.createAdminUser(ADMIN.username, ADMIN.password);
          const now = new Date();
          for (const item of ['alpha', 'beta', 'gamma']) await knex('items').insert({ name: item, created_at: now });
        } finally {
          await app.close();
          await knex.destroy();
        }
      },
    });
    const name = cluster.database;
    const open = (url: string) =>
      knexFactory({ client: 'pg', connection: cluster.on(url, name), pool: { min: 0, max: 4 } });
    primary = open(cluster.primaryUrl);
    replica = open(cluster.replicaUrl);
    replica.on('query', (query: { sql: string }) => {
      if (!query.sql.includes('pg_last_wal_replay_lsn')) replicaReads.push(query.sql);
    });
    useReplicas(primary, [replica], { refreshMs: 100 });
    const db = { engine: 'postgres' as const, knex: primary, destroy: async () => {} };
    const app = bootstrap({ plugins: [admin(adminOptions(db))], migrations: [appMigrations] });
    await app.start(primary);
    server = await koaHarness.mount(app.routes, {});
    close = async () => {
      await server.close();
      await app.close();
    };
  }, 90_000);
  afterAll(async () => {
    await close();
    await Promise.all([primary, replica].map((knex) => knex?.destroy()));
    cluster?.stop();
  });

  async function signedIn(): Promise<Client> {
    const client = new Client(server.url);
    expect((await client.login()).status).toBe(303);
    // Sign-in is not a repository write: no consistency cookie, reads go to the replica.
    expect(client.jar.has('crudsmith_consistency')).toBe(false);
    // Lets the rule see the replica's state before the reads under test.
    await client.get('/admin/items/');
    await pause(300);
    return client;
  }

  it('reads its lists and their row counts on the replica: a row written straight to the primary shows once the replica applied it', async () => {
    const client = await signedIn();
    await primary('items').insert({ name: 'fresh', created_at: new Date() });
    const before = replicaReads.length;
    const list = await client.get('/admin/items/');
    expect(rowIds(list.text)).toHaveLength(3);
    expect(list.text).not.toContain('fresh');
    expect(list.text).toMatch(/\b3 rows\b/);
    const routed = replicaReads.slice(before);
    expect(routed.some((sql) => /^select count\(/i.test(sql) && /from "items"/i.test(sql))).toBe(true);
    expect(routed.some((sql) => /^select /i.test(sql) && !/count\(/i.test(sql) && /from "items"/i.test(sql))).toBe(
      true,
    );
    await cluster.caughtUp();
    const later = await client.get('/admin/items/');
    expect(rowIds(later.text)).toHaveLength(4);
    expect(later.text).toContain('fresh');
    expect(later.text).toMatch(/\b4 rows\b/);
  });

  it('shows an admin its own write at once: the write answers a consistency cookie, and the list it leads to reads the primary, while another admin reads the list and the dashboard count on the replica', async () => {
    const client = await signedIn();
    const created = await client.postForm('/admin/items/form_create', { name: 'mine' });
    expect(created.status).toBe(303);
    expect(client.jar.get('crudsmith_consistency')).toMatch(/^[0-9A-F]+(\/|%2F)[0-9A-F]+$/);
    expect((await client.get('/admin/items/')).text).toContain('mine');
    // Another admin without the cookie reads the replica, two seconds behind: the list, and
    // the dashboard's count (the admin's write dropped the count it kept).
    const other = new Client(server.url);
    await other.login();
    expect((await other.get('/admin/items/')).text).not.toContain('mine');
    expect((await other.get('/admin/')).text).toMatch(/<a href="\/admin\/items\/">Items<\/a><\/td><td>4<\/td>/);
    expect(await primary('items').count({ n: '*' }).first()).toEqual({ n: '5' });
  });
});
