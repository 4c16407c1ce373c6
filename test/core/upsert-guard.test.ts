import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import { Model } from 'objection';
import { bootstrap, crudRouter, type Principal } from '@crudsmith/core';
import { koaHarness } from '../adapters/koa-harness';
import type { MountedServer } from '../adapters/conformance';
import { lockStored, upsertMany } from '../../core/src/data/upsert-writes';
import { mapDatabaseError } from '../../core/src/errors/database-error';
import { modelInfo } from '../../core/src/model/model-info';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

// An upsert under a row rule may update only the stored rows it checked: a row another
// client inserted after the check must stay as that client wrote it, whatever the engine.

class Tag extends Model {
  static override tableName = 'ug_tags';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      code: { type: 'string' },
      owner_id: { type: 'integer' },
      title: { type: 'string' },
    },
  };
}

class Price extends Model {
  static override tableName = 'ug_prices';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      price: { type: 'number' },
      at: { type: 'string', format: 'date-time' },
      owner_id: { type: 'integer' },
      title: { type: 'string' },
    },
  };
}

const principal = async (req: { headers: Record<string, unknown> }): Promise<Principal> => ({
  id: Number(req.headers['x-user']),
  isSuperuser: false,
  tierId: null,
  scopes: [],
  transport: 'bearer',
  roles: [],
  permissions: [],
});

/** The tags' table: a unique code, an owner, a title. */
function createTags(knex: Knex): Promise<void> {
  return knex.schema.createTable('ug_tags', (t) => {
    t.increments('id');
    t.string('code', 20).unique();
    t.integer('owner_id');
    t.string('title', 20);
  });
}

/** Posts items to a bulk route as user 1: the answer's status and body. */
async function postAsUser1(url: string, items: object[]): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(items),
    headers: { 'content-type': 'application/json', 'x-user': '1' },
  });
  return { status: res.status, body: await res.json() };
}

describe.each(ENGINES)('an upsert limited to the rows it checked, on %s', (engine) => {
  let db: TestDatabase;
  const info = modelInfo(Tag);
  const titles = async () =>
    Object.fromEntries((await db.knex('ug_tags').select('code', 'title')).map((row) => [row.code, row.title]));

  beforeAll(async () => {
    db = await openDatabase(engine);
    await createTags(db.knex);
  });
  afterAll(async () => {
    await server?.close();
    await db.destroy();
  });
  let server: MountedServer | undefined;
  // User 1 reads its own rows and user 2's, updates its own only; creating needs no row condition.
  const mountTags = (selectSchema?: string[]) =>
    koaHarness.mount(
      bootstrap({
        routers: [
          crudRouter({
            session: db.knex,
            model: Tag,
            path: '/tags',
            createSchema: ['code', 'title'],
            updateSchema: ['title'],
            ...(selectSchema ? { selectSchema } : {}),
            bulk: { conflictColumns: ['code'] },
            access: {
              default: {},
              read: { rows: (qb, p, table) => void qb.whereIn(`${table}.owner_id`, [p.id, 2]) },
              update: { rows: { owner_id: (p: Principal) => p.id } },
            },
          }),
        ],
        principal,
      }).routes,
      {},
    );

  it('leaves alone a row stored after the check, answers it skipped, and updates the checked ones', async () => {
    await db.knex('ug_tags').insert({ code: 'mine', owner_id: 1, title: 'old' });
    const rows = [
      { code: 'mine', owner_id: 1, title: 'new' },
      { code: 'theirs', owner_id: 1, title: 'taken' },
      { code: 'fresh', owner_id: 1, title: 'made' },
    ];
    const merge = new Set(['owner_id', 'title']);
    const outcome = await db.knex.transaction(async (trx) => {
      const stored = await lockStored(trx, info, 'code', ['mine', 'theirs', 'fresh']);
      expect([...stored]).toEqual(['mine']);
      // Another client inserts 'theirs' between the check and the statement (on MariaDB the
      // check's locking read holds that value's gap: its insert fails at once instead).
      const other = db.knex('ug_tags').insert({ code: 'theirs', owner_id: 2, title: 'kept' });
      if (engine === 'mysql') {
        await expect(db.knex.raw('SET STATEMENT innodb_lock_wait_timeout = 0 FOR ' + other.toString())).rejects.toThrow(
          /lock wait timeout/i,
        );
        await trx('ug_tags').insert({ code: 'theirs', owner_id: 2, title: 'kept' });
      } else if (engine === 'sqlite') await trx('ug_tags').insert({ code: 'theirs', owner_id: 2, title: 'kept' });
      else await other;
      return upsertMany(trx, info, rows, { conflict: 'code', merge, columns: ['code', 'title'], only: stored });
    });
    expect(await titles()).toEqual({ mine: 'new', theirs: 'kept', fresh: 'made' });
    expect(outcome.skipped).toEqual(['theirs']);
    // MariaDB answers no rows: the caller reads them.
    if (engine !== 'mysql')
      expect(outcome.rows).toEqual([
        { code: 'mine', title: 'new' },
        { code: 'fresh', title: 'made' },
      ]);
  });

  it('two upserts of one new value at once: the later one skips it, or MariaDB ends their deadlock with a 409', async () => {
    const rows = (title: string) => [{ code: 'race', owner_id: 1, title }];
    const merge = new Set(['title']);
    const run = async (title: string, opened?: Knex.Transaction) => {
      const trx = opened ?? (await db.knex.transaction());
      try {
        const only = await lockStored(trx, info, 'code', ['race']);
        return { trx, go: () => upsertMany(trx, info, rows(title), { conflict: 'code', merge, only }) };
      } catch (error) {
        await trx.rollback();
        throw error;
      }
    };
    const settle = (step: { trx: Knex.Transaction; go: () => Promise<{ skipped: unknown[] }> }) =>
      step.go().then(
        async (outcome) => (await step.trx.commit(), outcome),
        async (error) => (await step.trx.rollback().catch(() => undefined), Promise.reject(error)),
      );
    if (engine === 'sqlite') {
      // One writer at a time: the second transaction finds the first's row and may update it.
      await settle(await run('first'));
      expect(await settle(await run('second'))).toMatchObject({ skipped: [] });
      expect((await titles()).race).toBe('second');
      return;
    }
    const [one, two] = [await run('first'), await run('second')];
    const [a, b] = await Promise.allSettled([settle(one), settle(two)]);
    if (engine === 'postgres') {
      // Whichever inserts first wins; the other waits for its commit, then meets a row it did not check.
      const outcomes = [a, b].map((r) => (r.status === 'fulfilled' ? r.value.skipped : r.reason));
      const winner = outcomes.findIndex((skipped) => Array.isArray(skipped) && skipped.length === 0);
      expect(outcomes[1 - winner]).toEqual(['race']);
      expect((await titles()).race).toBe(['first', 'second'][winner]);
    } else {
      // Both hold the value's gap: InnoDB rolls one back as a deadlock's victim, a 409 to send again.
      const failed = [a, b].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(mapDatabaseError(failed[0].reason)?.status).toBe(409);
      expect(['first', 'second']).toContain((await titles()).race);
    }
  });

  it('an item that meets another row on another unique key leaves it alone; MariaDB answers the item skipped', async () => {
    await db.knex.schema.createTable('ug_slugs', (t) => {
      t.increments('id');
      t.string('slug', 20).unique();
      t.string('code', 20).unique();
      t.string('title', 20);
    });
    await db.knex('ug_slugs').insert([
      { slug: 'a', code: 'one', title: 'old' },
      { slug: 'b', code: 'two', title: 'other' },
    ]);
    const slugs = modelInfo(
      class extends Tag {
        static override tableName = 'ug_slugs';
      },
    );
    // 'one' names the first row, but its slug is the second's: the insert meets that first.
    const items = [{ slug: 'b', code: 'one', title: 'new' }];
    const outcome = await db.knex
      .transaction(async (trx) => {
        const only = await lockStored(trx, slugs, 'code', ['one']);
        return upsertMany(trx, slugs, items, { conflict: 'code', merge: new Set(['title']), only });
      })
      .catch((error: unknown) => mapDatabaseError(error)?.status);
    const stored = await db.knex('ug_slugs').select('code', 'title').orderBy('id');
    expect(stored[1]).toEqual({ code: 'two', title: 'other' });
    // PostgreSQL and SQLite meet the conflict column's row first and update it.
    expect(outcome).toEqual({ skipped: engine === 'mysql' ? ['one'] : [], met: [] });
    expect(stored[0]).toEqual({ code: 'one', title: engine === 'mysql' ? 'old' : 'new' });
  });

  it('through the route: 404 on a row out of sight, 403 on one it may not update, all or nothing', async () => {
    server = await mountTags();
    await db.knex('ug_tags').insert([
      { code: 'his', owner_id: 2, title: 'his' },
      { code: 'hidden', owner_id: 3, title: 'hidden' },
    ]);
    const upsert = async (items: object[]) =>
      (await postAsUser1(`${server!.url}/tags/bulk?on_conflict=code`, items)).status;
    const before = await titles();
    expect(
      await upsert([
        { code: 'mine', title: 'x' },
        { code: 'his', title: 'x' },
      ]),
    ).toBe(403);
    expect(
      await upsert([
        { code: 'new', title: 'x' },
        { code: 'hidden', title: 'x' },
      ]),
    ).toBe(404);
    expect(await titles()).toEqual(before);
    expect(
      await upsert([
        { code: 'mine', title: 'again' },
        { code: 'new', title: 'n' },
      ]),
    ).toBe(201);
    expect(await titles()).toEqual({ ...before, mine: 'again', new: 'n' });
  });

  it('a key differing only in case is the stored row where the unique index holds them equal (MariaDB)', async () => {
    await db.knex('ug_tags').insert({ code: 'Case', owner_id: 1, title: 'old' });
    // As the route above, answering the rows: the read-back matches them to the items too.
    const mounted = await mountTags(['code', 'title']);
    try {
      const upsert = (code: string) =>
        postAsUser1(`${mounted.url}/tags/bulk?on_conflict=code`, [{ code, title: 'new' }]);
      const folded = async (code: string) =>
        (await db.knex('ug_tags').select('code', 'title').orderBy('id')).filter(
          (row) => row.code.toLowerCase() === code,
        );
      const collated = engine === 'mysql';
      // User 2's row, which user 1 may read but not update: a 403 where 'HIS' is that row.
      expect((await upsert('HIS')).status).toBe(collated ? 403 : 201);
      expect(await upsert('CASE')).toEqual({ status: 201, body: [{ code: collated ? 'Case' : 'CASE', title: 'new' }] });
      expect(await folded('case')).toEqual(
        collated
          ? [{ code: 'Case', title: 'new' }]
          : [
              { code: 'Case', title: 'old' },
              { code: 'CASE', title: 'new' },
            ],
      );
    } finally {
      await mounted.close();
    }
  });

  it('a decimal or datetime conflict value matches its stored row in any form of it, under a row rule', async () => {
    await db.knex.schema.createTable('ug_prices', (t) => {
      t.increments('id');
      t.decimal('price', 8, 2).unique();
      t.datetime('at').unique();
      t.integer('owner_id');
      t.string('title', 20);
    });
    const router = crudRouter({
      session: db.knex,
      model: Price,
      path: '/prices',
      createSchema: ['price', 'at', 'owner_id', 'title'],
      updateSchema: ['title'],
      selectSchema: ['price', 'title'],
      bulk: { conflictColumns: ['price', 'at'] },
      access: { default: {}, update: { rows: { owner_id: (p: Principal) => p.id } } },
    });
    const mounted = await koaHarness.mount(bootstrap({ routers: [router], principal }).routes, {});
    try {
      const post = (query: string, item: object) => postAsUser1(`${mounted.url}/prices/bulk${query}`, [item]);
      const at = '2026-01-02T03:04:05Z';
      expect((await post('', { price: '10.50', at, owner_id: 1, title: 'old' })).status).toBe(201);
      // Stored as 10.50 (a string from pg and mysql2), sent as 10.5; one instant, two forms.
      expect(await post('?on_conflict=price', { price: 10.5, at, owner_id: 1, title: 'by price' })).toEqual({
        status: 201,
        body: [{ price: 10.5, title: 'by price' }],
      });
      const again = { price: 10.5, at: '2026-01-02T03:04:05.000+00:00', owner_id: 1, title: 'by at' };
      expect(await post('?on_conflict=at', again)).toEqual({ status: 201, body: [{ price: 10.5, title: 'by at' }] });
      expect(await db.knex('ug_prices').select('title')).toEqual([{ title: 'by at' }]);
    } finally {
      await mounted.close();
    }
  });
});

// MariaDB under READ COMMITTED: the check's locking read holds no index gap, so another
// client's insert of a value no row held goes through before the upsert's statement.
describe.each(ENGINES.filter((engine) => engine === 'mysql'))('an upsert under READ COMMITTED, on %s', (engine) => {
  it('a row another client commits after the check is answered skipped and kept, not quietly passed over', async () => {
    const db = await openDatabase(engine);
    const app = knexFactory({
      ...db.knex.client.config,
      pool: {
        min: 0,
        max: 2,
        afterCreate: (conn: any, done: (error: unknown, conn: unknown) => void) =>
          conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (error: unknown) => done(error, conn)),
      },
    });
    try {
      await createTags(db.knex);
      await db.knex('ug_tags').insert({ code: 'mine', owner_id: 1, title: 'old' });
      const info = modelInfo(Tag);
      const rows = ['mine', 'theirs', 'fresh'].map((code) => ({ code, owner_id: 1, title: code }));
      const outcome = await app.transaction(async (trx) => {
        const only = await lockStored(trx, info, 'code', ['mine', 'theirs', 'fresh']);
        // The other connection's insert commits at once: nothing holds the gap.
        await db.knex('ug_tags').insert({ code: 'theirs', owner_id: 2, title: 'kept' });
        return upsertMany(trx, info, rows, { conflict: 'code', merge: new Set(['title']), only });
      });
      expect(outcome.skipped).toEqual(['theirs']);
      const stored = await db.knex('ug_tags').select('code', 'title').orderBy('code');
      expect(stored).toEqual([
        { code: 'fresh', title: 'fresh' },
        { code: 'mine', title: 'mine' },
        { code: 'theirs', title: 'kept' },
      ]);
    } finally {
      await app.destroy();
      await db.destroy();
    }
  });
});

describe.each(ENGINES.filter((engine) => engine === 'postgres'))('an upsert naming one row twice, on %s', (engine) => {
  it('is a 422 at the body, never a 500, should such items reach the statement', async () => {
    const db = await openDatabase(engine);
    try {
      await db.knex.schema.createTable('ug_tags', (t) => {
        t.increments('id');
        t.string('code', 20).unique();
        t.integer('owner_id');
        t.string('title', 20);
      });
      const rows = ['a', 'b'].map((title) => ({ code: 'twice', owner_id: 1, title }));
      // The route refuses such items first; a repository or handler of one's own may not.
      const error = await db.knex
        .transaction((trx) => upsertMany(trx, modelInfo(Tag), rows, { conflict: 'code', merge: new Set(['title']) }))
        .catch((failure: unknown) => failure);
      expect(mapDatabaseError(error)).toMatchObject({
        status: 422,
        detail: [{ loc: ['body'], type: 'duplicate_in_request' }],
      });
      expect(await db.knex('ug_tags').count({ n: '*' })).toEqual([{ n: '0' }]);
    } finally {
      await db.destroy();
    }
  });
  it("keeps the same code from a subquery answering two rows an unknown failure, not the upsert's 422", async () => {
    const db = await openDatabase(engine);
    try {
      const error = await db.knex
        .raw('select (select x from (values (1), (2)) as t(x)) as one')
        .catch((failure: unknown) => failure);
      expect((error as { code?: string }).code).toBe('21000');
      expect(mapDatabaseError(error)).toBeUndefined();
    } finally {
      await db.destroy();
    }
  });
});
