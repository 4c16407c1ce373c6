// A `next_cursor` the example hands out is signed with a key derived from SECRET_KEY, so
// another process of the deployment, and the same app after a restart, continue the walk.
// SECRET_KEY is unset: the processes share the generated one, kept under a shared DATA_DIR
// (SQLite) or in the shared database (PostgreSQL). A cursor signed with another key is 400.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../core/src/data/cursor';
import { modelInfo } from '../../core/src/model/model-info';
import { sortSpecs } from '../../core/src/data/sort';
import { cursorKeyFrom } from '../../examples/app/src/cursor-key';
import { Item } from '../../examples/app/src/models/item';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';
import { spawnApp, type AppProcess } from './spawn-app';

const PASSWORD = 'cursors outlive their process';
// MariaDB's test database has no URL a process of its own could use.
const engines = ENGINES.filter((engine) => engine !== 'mysql');

describe.each(engines)('example keyset cursors across processes on %s', (engine) => {
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let env: Record<string, string>;
  let a: AppProcess | undefined;
  let b: AppProcess | undefined;
  let itemIds: number[] = [];
  let postIds: number[] = [];

  const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);
  const walk = async (base: string, path: string) => {
    const res = await new Client(base).get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: { id: number }[]; next_cursor: string | null };
  };
  /** The secret the first process generated and kept where every process finds it. */
  const sharedSecret = async () =>
    engine === 'sqlite'
      ? readFileSync(join(dataDir!, 'secret_key'), 'utf8').trim()
      : String((await db!.knex('app_settings').where('key', 'secret_key').first('value')).value);
  /** A first-page cursor of GET /api/v1/items, pointing after `afterId`, signed with `key`. */
  const itemCursor = (afterId: number, key: string | Buffer) => {
    const info = modelInfo(Item);
    return encodeCursor({ id: afterId }, { info, specs: sortSpecs(info), key });
  };

  beforeAll(async () => {
    if (engine === 'sqlite') {
      dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-cursors-'));
      env = { DATA_DIR: dataDir };
    } else {
      db = await openDatabase(engine);
      env = { DATABASE_URL: db.url! };
    }
    // One after the other: A migrates and generates the secret; B finds both.
    a = await spawnApp(env, 60_000);
    b = await spawnApp(env, 60_000);
    const anonymous = new Client(a.url);
    for (let i = 1; i <= 5; i++) {
      const created = await anonymous.request('POST', '/api/v1/items', { json: { name: `item ${i}` } });
      expect(created.status).toBe(201);
      itemIds.push(created.body.id);
    }
    expect(
      (
        await anonymous.request('POST', '/auth/register', {
          json: { username: 'walker', email: 'walker@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    const token = await anonymous.request('POST', '/auth/token', { form: { username: 'walker', password: PASSWORD } });
    const bearer = { authorization: `Bearer ${token.body.access_token}` };
    for (let i = 1; i <= 3; i++) {
      const created = await anonymous.request('POST', '/api/v2/posts/', {
        json: { title: `post ${i}`, text: 'walk me' },
        headers: bearer,
      });
      expect(created.status).toBe(201);
      postIds.push(created.body.id);
    }
  }, 150_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    itemIds = [];
    postIds = [];
  });

  it('a cursor from one process is accepted by another, for items and for posts', async () => {
    const first = await walk(a!.url, '/api/v1/items?cursor=&limit=2');
    expect(ids(first)).toEqual(itemIds.slice(0, 2));
    const second = await walk(b!.url, `/api/v1/items?cursor=${first.next_cursor}&limit=2`);
    expect(ids(second)).toEqual(itemIds.slice(2, 4));
    expect(ids(await walk(a!.url, `/api/v1/items?cursor=${second.next_cursor}&limit=2`))).toEqual(itemIds.slice(4));

    const posts = await walk(b!.url, '/api/v2/posts/?cursor=&limit=2');
    expect(ids(posts)).toEqual(postIds.slice(0, 2));
    expect(ids(await walk(a!.url, `/api/v1/posts/?cursor=${posts.next_cursor}&limit=2`))).toEqual(postIds.slice(2));
  });

  it('a cursor survives a restart', async () => {
    const first = await walk(a!.url, '/api/v1/items?cursor=&limit=3');
    await a!.stop();
    a = await spawnApp(env, 60_000);
    expect(ids(await walk(a.url, `/api/v1/items?cursor=${first.next_cursor}&limit=3`))).toEqual(itemIds.slice(3));
  }, 90_000);

  it('signs with a key derived from the secret: the secret itself or another key is refused (400)', async () => {
    const secret = await sharedSecret();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(ids(await walk(b!.url, `/api/v1/items?cursor=${itemCursor(itemIds[1], cursorKeyFrom(secret))}`))).toEqual(
      itemIds.slice(2),
    );
    for (const key of [secret, cursorKeyFrom('another deployment entirely, with its own secret')]) {
      for (const app of [a!, b!]) {
        const res = await new Client(app.url).get(`/api/v1/items?cursor=${itemCursor(itemIds[1], key)}`);
        expect(res).toMatchObject({ status: 400, body: { detail: 'Invalid cursor' } });
      }
    }
  });
});
