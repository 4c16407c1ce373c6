// The example on a private PostgreSQL primary with a streaming replica that applies WAL
// two seconds late (DATABASE_REPLICA_URL): reads go to the replica, a client reads its own
// write at once through the consistency token (header or cookie) on any process, a client
// without one may see the replica's lag, and a replica lost mid-load is never a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../examples/app/src/config';
import { ENGINES } from '../fixtures/db';
import { clusterWanted, startPgCluster, type PgCluster } from '../fixtures/pg-cluster';
import { spawnApp, type AppProcess } from './spawn-app';

const wanted = clusterWanted(ENGINES);
if (!wanted) it.skip('needs PostgreSQL in CRUDSMITH_DATABASES, pgbouncer and the PostgreSQL binaries', () => {});
const TOKEN = 'crudsmith-consistency';

describe('DATABASE_REPLICA_URL', () => {
  it('takes PostgreSQL replicas of a PostgreSQL DATABASE_URL, comma-separated, and refuses anything else before connecting', () => {
    expect(
      readSettings({ DATABASE_URL: 'postgres://a/db', DATABASE_REPLICA_URL: 'postgres://b/db, postgres://c/db' }),
    ).toMatchObject({ databaseReplicaUrls: ['postgres://b/db', 'postgres://c/db'], replicaMaxLagMs: 10_000 });
    expect(readSettings({}).databaseReplicaUrls).toEqual([]);
    expect(() => readSettings({ DATABASE_REPLICA_URL: 'postgres://b/db' })).toThrow(/DATABASE_URL/);
    expect(() => readSettings({ DATABASE_URL: 'postgres://a/db', DATABASE_REPLICA_URL: 'mysql://b/db' })).toThrow(
      /postgres:\/\//,
    );
    expect(() => readSettings({ DATABASE_URL: 'postgres://a/db', DATABASE_REPLICA_MAX_LAG_MS: '-1' })).toThrow(
      /DATABASE_REPLICA_MAX_LAG_MS/,
    );
  });
});

describe.runIf(wanted)('example with a read replica', () => {
  let cluster: PgCluster;
  let apps: AppProcess[] = [];

  beforeAll(async () => {
    cluster = await startPgCluster();
    const name = cluster.database;
    const env = {
      DATABASE_URL: cluster.on(cluster.primaryUrl, name),
      DATABASE_REPLICA_URL: cluster.on(cluster.replicaUrl, name),
      LOG_LEVEL: 'warn',
      DEFAULT_RATE_LIMIT_LIMIT: '1000000000',
    };
    apps = [await spawnApp(env, 60_000)];
    apps.push(await spawnApp(env, 60_000));
    // The replica has the schema the first process migrated, and each process has seen it.
    await cluster.caughtUp();
    for (const app of apps) for (let i = 0; i < 3; i++) await fetch(`${app.url}/api/v1/items`);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    cluster?.stop();
  });

  const create = async (base: string, name: string) => {
    const res = await fetch(`${base}/api/v1/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, category: 'replica' }),
    });
    expect(res.status).toBe(201);
    return {
      id: ((await res.json()) as { id: number }).id,
      token: res.headers.get(TOKEN),
      cookie: res.headers.get('set-cookie'),
    };
  };

  it('answers a write with a consistency token, as a header and as an HttpOnly SameSite cookie', async () => {
    const { token, cookie } = await create(apps[0].url, 'tokened');
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(decodeURIComponent(cookie!)).toContain(`crudsmith_consistency=${token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('lets the writer read its write at once, on the same process and on another, by header or by cookie; a reader without the token sees the lagging replica', async () => {
    const { id, token } = await create(apps[0].url, 'mine');
    const [anyone, sameProcess, otherProcess, byCookie] = await Promise.all([
      fetch(`${apps[0].url}/api/v1/items/${id}`),
      fetch(`${apps[0].url}/api/v1/items/${id}`, { headers: { [TOKEN]: token! } }),
      fetch(`${apps[1].url}/api/v1/items/${id}`, { headers: { [TOKEN]: token! } }),
      fetch(`${apps[1].url}/api/v1/items/${id}`, { headers: { cookie: `crudsmith_consistency=${token}` } }),
    ]);
    // The replica applies WAL two seconds late: a read without the token went there.
    expect(anyone.status).toBe(404);
    for (const res of [sameProcess, otherProcess, byCookie]) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }).name).toBe('mine');
    }
    // Lists and counts follow the same rule.
    const list = await fetch(`${apps[1].url}/api/v1/items?category=replica&name=mine`, {
      headers: { [TOKEN]: token! },
    });
    expect(((await list.json()) as { total_count: number }).total_count).toBe(1);
    // Once the replica has caught up (about two seconds), everyone sees it.
    let status = 0;
    for (const deadline = Date.now() + 10_000; status !== 200 && Date.now() < deadline;) {
      status = (await fetch(`${apps[0].url}/api/v1/items/${id}`)).status;
      if (status !== 200) await new Promise((done) => setTimeout(done, 100));
    }
    expect(status).toBe(200);
  });

  it('ignores a malformed token and reads as without one', async () => {
    const res = await fetch(`${apps[0].url}/api/v1/items?category=replica`, { headers: { [TOKEN]: 'x'.repeat(5000) } });
    expect(res.status).toBe(200);
  });

  it('answers no 5xx when the replica stops mid-load, reads going to the primary, and uses the replica again once it is back', async () => {
    const statuses: number[] = [];
    let stop = false;
    const load = async (app: AppProcess, c: number) => {
      for (let r = 0; !stop; r++) {
        const res =
          r % 3 === 0
            ? await fetch(`${app.url}/api/v1/items`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ name: `load ${c}.${r}`, category: 'load' }),
              })
            : await fetch(`${app.url}/api/v1/items?category=load&sort=-id&itemsPerPage=5`);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    };
    const clients = Array.from({ length: 8 }, (_, c) => load(apps[c % 2], c));
    await new Promise((done) => setTimeout(done, 1000));
    cluster.stopReplica();
    await new Promise((done) => setTimeout(done, 2500));
    stop = true;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // Back: reads without a token reach the lagging replica again (a fresh write is not there yet).
    cluster.startReplica();
    // Reads ask the replica's state again (at most once a second) and find it back: a write
    // is then not there yet for a reader without the token.
    let status = 0;
    for (const deadline = Date.now() + 10_000; status !== 404 && Date.now() < deadline;) {
      const { id } = await create(apps[0].url, 'after restart');
      status = (await fetch(`${apps[0].url}/api/v1/items/${id}`)).status;
      if (status !== 404) await new Promise((done) => setTimeout(done, 250));
    }
    expect(status).toBe(404);
  }, 60_000);
});
