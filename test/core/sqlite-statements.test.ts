// On better-sqlite3, a query the compiled-SQL cache answers runs on a statement prepared
// once per connection. These cases count the connection's prepares while generated routes
// run, and hold every answer (and knex's 'query' events) to those of a client that
// prepares each statement afresh, across schema changes, transactions and errors.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { Model } from 'objection';
import knexFactory, { type Knex } from 'knex';
import { crudRouter, routesOf } from '@crudsmith/core';
import { reuseCompiledSql } from '../../core/src/data/compiled-sql';
import { MAX_STATEMENTS, keptStatements, reusePreparedStatements } from '../../core/src/data/sqlite-statements';
import { stablePlaceholders } from '../../core/src/data/sqlite-placeholders';
import { withDatabaseTimeouts } from '../../core/src/data/database-timeouts';
import { koaHarness } from '../adapters/koa-harness';
import type { MountedServer } from '../adapters/conformance';
import { ENGINES } from '../fixtures/db';

const TIMES = ['deleted_at', 'created_at', 'updated_at'];
class Note extends Model {
  static override tableName = 'notes';
  static override jsonSchema = {
    properties: {
      id: { type: 'integer' },
      title: { type: 'string' },
      price: { type: ['number', 'null'] },
      is_deleted: { type: 'boolean' },
      ...Object.fromEntries(TIMES.map((column) => [column, { type: ['string', 'null'], format: 'date-time' }])),
    },
  };
}
class NoteCreate {
  @IsString() @MaxLength(100) title!: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
}
class NoteUpdate {
  @IsOptional() @IsString() @MaxLength(100) title?: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
}
class NoteDelete {}

type Connection = { prepare(sql: string): unknown };
interface Side {
  knex: Knex;
  connection: Connection;
  prepared: string[];
  sent: string[];
  server: MountedServer;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const BetterSqlite = require('knex/lib/dialects/better-sqlite3') as new (config: Knex.Config) => {
  _query(...args: unknown[]): Promise<unknown>;
};
/** knex's better-sqlite3 client with a `_query` of its own, which is never wrapped: it prepares every statement. */
class PreparingEachTime extends BetterSqlite {
  override _query(...args: unknown[]): Promise<unknown> {
    return super._query(...args);
  }
}

const open = (reuse = true) =>
  knexFactory({
    client: reuse ? 'better-sqlite3' : (PreparingEachTime as unknown as typeof Knex.Client),
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
  });

async function createNotes(knex: Knex, extraFirst = false): Promise<void> {
  await knex.schema.createTable('notes', (t) => {
    if (extraFirst) t.string('extra').nullable();
    t.increments('id');
    t.string('title', 100).notNullable().unique();
    t.decimal('price', 10, 2).nullable();
    t.boolean('is_deleted').notNullable().defaultTo(false);
    for (const column of TIMES) t.datetime(column, { precision: 3 }).nullable();
  });
}

/** The database's one pooled connection (in-memory SQLite pools one), with its prepares counted. */
async function countPrepares(knex: Knex): Promise<{ connection: Connection; prepared: string[] }> {
  const connection = (await knex.client.acquireConnection()) as Connection;
  knex.client.releaseConnection(connection);
  const prepared: string[] = [];
  const prepare = connection.prepare;
  connection.prepare = function (this: Connection, sql: string) {
    prepared.push(sql);
    return prepare.call(this, sql);
  };
  return { connection, prepared };
}

async function side(reuse: boolean): Promise<Side> {
  const knex = open(reuse);
  await createNotes(knex);
  const sent: string[] = [];
  knex.on('query', (query: { sql: string }) => sent.push(query.sql));
  const server = await koaHarness.mount(
    routesOf(
      crudRouter({
        session: knex,
        model: Note,
        createSchema: NoteCreate,
        updateSchema: NoteUpdate,
        deleteSchema: NoteDelete,
        selectSchema: ['id', 'title', 'price', 'created_at'],
        path: '/notes',
      }),
      crudRouter({
        session: knex,
        model: Note,
        createSchema: NoteCreate,
        updateSchema: NoteUpdate,
        deleteSchema: NoteDelete,
        path: '/all',
      }),
    ),
    { prefix: '/api' },
  );
  return { knex, sent, server, ...(await countPrepares(knex)) };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function call(at: Side, method: string, path: string, body?: unknown): Promise<unknown> {
  at.sent.length = 0;
  const res = await fetch(`${at.server.url}/api${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  // The two sides write their own clocks' times.
  const answer =
    text === ''
      ? undefined
      : JSON.parse(text, (_, value) => (typeof value === 'string' && ISO.test(value) ? 'time' : value));
  return { status: res.status, body: answer, statements: [...at.sent] };
}

/** Creates, reads, lists, updates and deletes, `rounds` times, with a conflict and a miss. */
async function exercise(at: Side, round: number): Promise<unknown[]> {
  const answers: unknown[] = [];
  answers.push(await call(at, 'POST', '/notes', { title: `note ${round}`, price: round + 0.5 }));
  answers.push(await call(at, 'POST', '/notes', { title: `note ${round}` }));
  answers.push(await call(at, 'POST', '/notes', { title: `spare ${round}` }));
  answers.push(await call(at, 'GET', `/notes/${round * 2 + 1}`));
  answers.push(await call(at, 'GET', `/all/${round * 2 + 1}`));
  answers.push(await call(at, 'GET', '/notes?limit=5&sort=-id'));
  answers.push(await call(at, 'GET', '/all?limit=5&sort=-id'));
  answers.push(await call(at, 'PATCH', `/notes/${round * 2 + 1}`, { price: round }));
  answers.push(await call(at, 'PATCH', `/notes/${round * 2 + 2}`, { title: 'note 0' }));
  answers.push(await call(at, 'DELETE', `/notes/${round * 2 + 2}`));
  answers.push(await call(at, 'GET', '/notes/999'));
  return answers;
}

describe.skipIf(!ENGINES.includes('sqlite'))('prepared statements reused on better-sqlite3', () => {
  let reusing: Side;
  let plain: Side;
  beforeAll(async () => {
    [reusing, plain] = await Promise.all([side(true), side(false)]);
  });
  afterAll(async () => {
    for (const at of [reusing, plain]) {
      await at?.server.close();
      await at?.knex.destroy();
    }
  });

  /** Runs the same steps on both sides and expects the same answers and statements. */
  async function both(step: (at: Side) => Promise<unknown>): Promise<void> {
    expect(await step(reusing)).toEqual(await step(plain));
  }

  it('prepares a repeated generated create, read, list, update and delete once, with the same answers and events', async () => {
    // A shape's first query compiles as usual; its second is the first the cache answers
    // (round 0 writes zeros and so has shapes of its own).
    for (const round of [0, 1, 2]) await both((at) => exercise(at, round));
    const warm = reusing.prepared.length;
    for (const round of [3, 4, 5]) await both((at) => exercise(at, round));
    expect(reusing.prepared.slice(warm)).toEqual([]);
    expect(plain.prepared.length).toBeGreaterThan(warm + 3 * 10);
    expect(keptStatements(reusing.connection)).toBeGreaterThan(5);
    expect(keptStatements(plain.connection)).toBe(0);
  });

  it('answers as before across schema changes made after its statements were prepared', async () => {
    const steps = (at: Side) => exercise(at, 6);
    await both(steps);
    await both(async (at) => {
      await at.knex.schema.alterTable('notes', (t) => t.string('added').nullable());
      return [...(await steps(at)), await call(at, 'GET', '/all/11')];
    });
    // The same table again, with its columns elsewhere: a kept statement must not read by position.
    await both(async (at) => {
      const rows = await at.knex('notes').select('*');
      await at.knex.schema.dropTable('notes');
      await createNotes(at.knex, true);
      for (const { added: _, ...row } of rows) await at.knex('notes').insert({ ...row, extra: 'x' });
      return [...(await steps(at)), await call(at, 'GET', '/all/11'), await call(at, 'GET', '/notes?limit=3')];
    });
    // No table at all: the same failure as a fresh prepare, then the same answers once it is back.
    await both(async (at) => {
      const rows = await at.knex('notes').select('*');
      await at.knex.schema.dropTable('notes');
      const missing = [await call(at, 'GET', '/notes/11'), await call(at, 'POST', '/notes', { title: 'nowhere' })];
      await createNotes(at.knex);
      for (const { extra: _, ...row } of rows) await at.knex('notes').insert(row);
      return [...missing, ...(await steps(at))];
    });
  });

  it("shares the connection's statements with its transactions, events unchanged", async () => {
    const read = (k: Knex, id: number) => reuseCompiledSql(k('notes').select(['id', 'title']).where('id', id).limit(1));
    const run = async (at: Side) => {
      const answers = [await read(at.knex, 1), await read(at.knex, 3)];
      const before = at.prepared.length;
      at.sent.length = 0;
      await at.knex.transaction(async (trx) => {
        answers.push(await read(trx, 5), await read(trx, 7), await trx('notes').where('id', 7).update({ price: 1 }));
      });
      answers.push(await read(at.knex, 7));
      return {
        answers,
        sent: [...at.sent],
        reads: at.prepared.slice(before).filter((sql) => sql.startsWith('select')).length,
      };
    };
    const [mine, theirs] = [await run(reusing), await run(plain)];
    expect(mine.answers).toEqual(theirs.answers);
    expect(mine.sent).toEqual(theirs.sent);
    expect(mine.reads).toBe(0);
    expect(theirs.reads).toBe(3);
  });
});

describe.skipIf(!ENGINES.includes('sqlite'))('the statements kept per connection', () => {
  let knex: Knex;
  beforeAll(async () => {
    knex = open();
    await knex.schema.createTable('t', (t) => t.increments('id'));
    await knex('t').insert({});
  });
  afterAll(() => knex?.destroy());

  it('stay bounded, the least recently used one dropped first', async () => {
    const { connection, prepared } = await countPrepares(knex);
    const shape = (i: number) =>
      reuseCompiledSql(
        knex('t')
          .select(knex.raw(`${i} as n`))
          .where('id', 1),
      );
    for (let i = 0; i <= MAX_STATEMENTS + 20; i++) {
      await shape(i);
      expect(await shape(i)).toEqual([{ n: i }]);
    }
    expect(keptStatements(connection)).toBe(MAX_STATEMENTS);
    prepared.length = 0;
    await shape(MAX_STATEMENTS + 20);
    expect(prepared).toEqual([]);
    expect(await shape(0)).toEqual([{ n: 0 }]);
    expect(prepared).toHaveLength(1);
    expect(keptStatements(connection)).toBe(MAX_STATEMENTS);
  });

  it('are kept under withDatabaseTimeouts too (its client bounds query, not _query)', async () => {
    const bounded = knexFactory(
      withDatabaseTimeouts({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true }),
    );
    try {
      const { connection, prepared } = await countPrepares(bounded);
      await bounded.schema.createTable('t', (t) => t.increments('id'));
      for (let i = 0; i < 4; i++) await bounded('t').insert({});
      prepared.length = 0;
      const read = (id: number) => reuseCompiledSql(bounded('t').select(['id']).where('id', id));
      for (const id of [1, 2, 3, 4]) expect(await read(id)).toEqual([{ id }]);
      expect(prepared).toHaveLength(2);
      expect(keptStatements(connection)).toBe(1);
    } finally {
      await bounded.destroy();
    }
  });

  it('are never used by a query the cache did not answer, nor on other engines', async () => {
    const { prepared } = await countPrepares(knex);
    for (let i = 0; i < 3; i++) expect(await knex('t').select('id').where('id', 1)).toEqual([{ id: 1 }]);
    expect(prepared).toHaveLength(3);
    for (const client of ['pg', 'mysql2']) {
      const other = knexFactory({ client, useNullAsDefault: true });
      const own = other.client._query;
      reusePreparedStatements(other.client);
      expect(other.client._query).toBe(own);
      await other.destroy();
    }
  });
});

describe('the values of a kept statement', () => {
  it('are written +? where SQLite would plan around them', () => {
    expect(
      stablePlaceholders('select `id` from `t` where `a` = ? and `b` in (?, ?) order by `id` asc limit ? offset ?'),
    ).toBe('select `id` from `t` where `a` = +? and `b` in (+?, +?) order by `id` asc limit +? offset +?');
    expect(stablePlaceholders('insert into `t` (`a`, `b`) values (?, ?)')).toBe(
      'insert into `t` (`a`, `b`) values (+?, +?)',
    );
    expect(stablePlaceholders('update `t` set `a` = ? where `id` = ?1')).toBe(
      'update `t` set `a` = +? where `id` = +?1',
    );
  });

  it("leave a LIKE or GLOB pattern, its ESCAPE and a collated value bare: SQLite's look at those is worth a compile", () => {
    expect(
      stablePlaceholders('select 1 from t where a NOT LIKE ? ESCAPE ? and lower(b) glob ? and c = ? COLLATE nocase'),
    ).toBe('select 1 from t where a NOT LIKE ? ESCAPE ? and lower(b) glob ? and c = ? COLLATE nocase');
    expect(stablePlaceholders('select 1 from t where a like /* why */ ? and b = ? -- note\n collate binary')).toBe(
      'select 1 from t where a like /* why */ ? and b = ? -- note\n collate binary',
    );
  });

  it('never touch a question mark inside a string, a quoted name or a comment', () => {
    const sql = `select 'a?''?' as "b?""?", \`c?\`, [d?] from t -- e?\nwhere f = ? /* g? */`;
    expect(stablePlaceholders(sql)).toBe(sql.replace('f = ?', 'f = +?'));
    expect(stablePlaceholders("select 'unterminated ?")).toBe("select 'unterminated ?");
  });

  describe.skipIf(!ENGINES.includes('sqlite'))('on better-sqlite3', () => {
    let knex: Knex;
    beforeAll(async () => {
      knex = open();
      // One rare value of `a` among 2,000: with ANALYZE's samples, SQLite would search the
      // rare one by `a` and the common one by `b`, a plan per value bound.
      await knex.schema.createTable('skewed', (t) => {
        t.increments('id');
        t.integer('a').index();
        t.integer('b').index();
      });
      const rows = Array.from({ length: 2000 }, (_, i) => ({ a: i === 1000 ? 2 : 1, b: i }));
      for (let i = 0; i < rows.length; i += 400) await knex('skewed').insert(rows.slice(i, i + 400));
      await knex.raw('ANALYZE');
    });
    afterAll(() => knex?.destroy());

    it('keep the plan they were prepared with, whatever values are bound, with the same rows', async () => {
      const { connection, prepared } = await countPrepares(knex);
      const query = (a: number, b: number) =>
        knex('skewed').select(['id', 'b']).where('a', a).where('b', '>', b).orderBy('id').limit(5);
      const cases: [number, number][] = [
        [2, 0],
        [1, 1990],
      ];
      for (const [a, b] of cases) {
        await reuseCompiledSql(query(a, b));
        expect(await reuseCompiledSql(query(a, b))).toEqual(await query(a, b));
      }
      const kept = prepared.filter((sql) => sql.includes('+?'));
      expect(kept).toHaveLength(1);
      const plan = (sql: string, [a, b]: [number, number]) =>
        (
          (connection as unknown as { prepare(sql: string): { all(...values: unknown[]): { detail: string }[] } })
            .prepare(`explain query plan ${sql}`)
            .all(a, b, 5) as { detail: string }[]
        ).map((step) => step.detail);
      // As knex writes it, the statement is planned again for each pair of values...
      const { sql: written } = query(1, 1).toSQL();
      expect(plan(written, cases[0])).not.toEqual(plan(written, cases[1]));
      // ...and as kept, it is not.
      expect(plan(kept[0], cases[0])).toEqual(plan(kept[0], cases[1]));
    });
  });
});
