import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writesDirectly } from '../../core/src/data/direct-writes';
import { modelInfo } from '../../core/src/model/model-info';
import { Item } from '../../examples/app/src/models/item';
import { Post } from '../../examples/app/src/models/post';
import { User } from '../../examples/app/src/models/user';
import { ENGINES } from '../fixtures/db';
import { PASSWORD, send, startExample, type ExampleServer } from './example-server';

// The example's models carry no hook to stamp created_at: the repository stamps it, on
// every way a row comes in (generated routes, hand-written routes, the account plugin's
// registration, the first superuser), and the models stay on the direct write path.
describe('the example models', () => {
  it('have no objection hook, so their writes go through knex directly', () => {
    for (const model of [Item, Post, User]) expect(writesDirectly(modelInfo(model)), model.name).toBe(true);
  });
});

describe.each(ENGINES)('created_at and updated_at of the example rows on %s', (engine) => {
  let ex: ExampleServer;
  let since: number;
  const stamp = async (table: string, id: number, column = 'created_at'): Promise<number> => {
    const row = await ex.db.knex(table).where('id', id).first(column);
    // SQLite hands datetimes back as epoch milliseconds, the others as Dates.
    return row[column] === null ? NaN : new Date(row[column]).getTime();
  };
  /** A stamp written between `since` and now (a clock read in this process: no skew). */
  const expectFresh = (at: number) => {
    expect(at).toBeGreaterThanOrEqual(since);
    expect(at).toBeLessThanOrEqual(Date.now());
  };

  beforeAll(async () => {
    since = Date.now();
    ex = await startExample(engine, { users: ['ann'], build: { rateLimit: { defaultLimit: 100_000 } } });
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('stamps users made by the first superuser, POST /api/v1/users/, /auth/register and POST /api/v2/users/', async () => {
    const admin = await ex.db.knex('users').where('username', 'admin').first('id');
    expectFresh(await stamp('users', admin.id));
    expectFresh(await stamp('users', ex.ids.ann));
    const registered = await ex
      .client()
      .request('POST', '/auth/register', { json: { username: 'reg', email: 'reg@example.com', password: PASSWORD } });
    expect(registered.status).toBe(201);
    expectFresh(await stamp('users', registered.body.id));
    const ann = await ex.signedIn('ann');
    const v2 = await send(ann, 'POST', '/api/v2/users/', {
      name: 'Vee',
      username: 'vee',
      email: 'vee@example.com',
      password: PASSWORD,
      accept_terms: true,
    });
    expect(v2.status).toBe(201);
    expectFresh(await stamp('users', v2.body.id));
    expectFresh(new Date(v2.body.created_at).getTime());
  });

  it('stamps updated_at on a hand-written PATCH, and leaves created_at as it was', async () => {
    const before = await stamp('users', ex.ids.ann);
    expect(await stamp('users', ex.ids.ann, 'updated_at')).toBeNaN();
    since = Date.now();
    const ann = await ex.signedIn('ann');
    expect((await send(ann, 'PATCH', `/api/v1/users/${ex.ids.ann}`, { name: 'Ann Again' })).status).toBe(200);
    expectFresh(await stamp('users', ex.ids.ann, 'updated_at'));
    expect(await stamp('users', ex.ids.ann)).toBe(before);
  });

  it('stamps posts and items made through the generated routes', async () => {
    since = Date.now();
    const ann = await ex.signedIn('ann');
    const post = await send(ann, 'POST', '/api/v1/posts/', { title: 'Stamped', text: 'no hook' });
    expect(post.status).toBe(201);
    expectFresh(await stamp('posts', post.body.id));
    const item = await ex.client().request('POST', '/api/v1/items', { json: { name: 'Stamped' } });
    expect(item.status).toBe(201);
    expectFresh(await stamp('items', item.body.id));
  });
});
