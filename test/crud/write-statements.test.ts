// How many statements each generated write sends, counted per request from knex's 'query'
// events, with the answers and errors they must keep: a write of one row is one
// conditional statement (PostgreSQL and SQLite answer the created row with RETURNING,
// MariaDB reads it once, and not at all when the route answers null), and a model with
// objection hooks keeps its transaction.
import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { Model } from 'objection';
import { crudRouter, routesOf, type CrudOptions } from '@crudsmith/core';
import { expressHarness } from '../adapters/express-harness';
import { fastifyHarness } from '../adapters/fastify-harness';
import { koaHarness } from '../adapters/koa-harness';
import type { MountedServer } from '../adapters/conformance';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

const ts = { type: ['string', 'null'], format: 'date-time' };

/** A model objection adds nothing to: written through knex directly. */
class Note extends Model {
  static override tableName = 'notes';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
      title: { type: 'string', maxLength: 100 },
      org: { type: ['string', 'null'], maxLength: 20 },
      price: { type: ['number', 'null'] },
      is_deleted: { type: 'boolean' },
      deleted_at: ts,
      created_at: ts,
      updated_at: ts,
    },
  };
}

const hooked: string[] = [];
/** The same table with an update hook: objection writes it, in a transaction. */
class HookedNote extends Note {
  override $beforeUpdate() {
    hooked.push('update');
  }
}

class NoteCreate {
  @IsString() @MaxLength(100) title!: string;
  @IsOptional() @IsString() @MaxLength(20) org?: string | null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
}
class NoteUpdate {
  @IsOptional() @IsString() @MaxLength(100) title?: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
}
class NoteDelete {}
const NOTE_READ = ['id', 'title', 'org', 'price', 'is_deleted', 'created_at', 'updated_at'];

interface Answer {
  status: number;
  body: any;
  /** The statements knex sent while the request ran. */
  sql: string[];
}

const harnesses = [koaHarness, expressHarness, fastifyHarness];

describe.each(ENGINES)('statements per generated write on %s', (engine) => {
  let db: TestDatabase;
  const sent: string[] = [];
  const servers: MountedServer[] = [];

  beforeAll(async () => {
    db = await openDatabase(engine);
    await db.knex.schema.createTable('notes', (t) => {
      t.increments('id');
      t.string('title', 100).notNullable().unique();
      t.string('org', 20).nullable();
      t.decimal('price', 10, 2).nullable();
      t.boolean('is_deleted').notNullable().defaultTo(false);
      for (const column of ['deleted_at', 'created_at', 'updated_at']) t.datetime(column, { precision: 3 }).nullable();
    });
    db.knex.on('query', (query: { sql: string }) => sent.push(query.sql));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await db?.destroy();
  });

  const options = (extra: Partial<CrudOptions>): CrudOptions => ({
    session: db.knex,
    model: Note,
    createSchema: NoteCreate,
    updateSchema: NoteUpdate,
    deleteSchema: NoteDelete,
    selectSchema: NOTE_READ,
    ...extra,
  });

  describe.each(harnesses)('through $name', (harness) => {
    let base: string;

    beforeAll(async () => {
      const server = await harness.mount(
        routesOf(
          crudRouter(
            options({ path: '/notes', bulk: { conflictColumns: ['title'] }, filterConfig: { title__in: null } }),
          ),
          crudRouter(options({ path: '/plain', selectSchema: undefined })),
          crudRouter(options({ path: '/hooked', model: HookedNote })),
          crudRouter(options({ path: '/scoped', filterConfig: { org: (req) => req.headers['x-org'] ?? null } })),
        ),
        { prefix: '/api' },
      );
      servers.push(server);
      base = `${server.url}/api`;
    });
    beforeEach(async () => {
      await db.knex('notes').truncate();
      hooked.length = 0;
    });

    async function call(
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<Answer> {
      sent.length = 0;
      const res = await fetch(`${base}${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text), sql: [...sent] };
    }
    const seed = async (title: string, extra: Record<string, unknown> = {}) => {
      const insert = db.knex('notes').insert({ title, is_deleted: false, created_at: new Date(), ...extra });
      const [id] = engine === 'postgres' ? await insert.returning('id') : await insert;
      return Number(typeof id === 'object' ? id.id : id);
    };
    const transactional = (sql: string[]) =>
      sql.some((statement) => /^(begin|commit|start transaction)/i.test(statement));

    it('create is one INSERT … RETURNING (an INSERT and one read on MariaDB), answered exactly as a later GET', async () => {
      const created = await call('POST', '/notes', { title: 'first', price: 2.5 });
      expect(created.status).toBe(201);
      expect(created.sql).toHaveLength(engine === 'mysql' ? 2 : 1);
      expect(created.sql[0]).toMatch(/^insert into/i);
      if (engine !== 'mysql') expect(created.sql[0]).toMatch(/ returning /i);
      expect(transactional(created.sql)).toBe(false);
      expect(Object.keys(created.body).sort()).toEqual([...NOTE_READ].sort());
      expect(created.body).toMatchObject({
        title: 'first',
        price: 2.5,
        org: null,
        is_deleted: false,
        updated_at: null,
      });
      expect(created.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const read = await call('GET', `/notes/${created.body.id}`);
      expect(read.sql).toHaveLength(1);
      expect(read.body).toEqual(created.body);
    });

    it('create without a selectSchema answers 201 null after one INSERT on every engine (no read back on MariaDB)', async () => {
      const created = await call('POST', '/plain', { title: 'plain' });
      expect(created).toMatchObject({ status: 201, body: null });
      expect(created.sql).toHaveLength(1);
      expect(created.sql[0]).toMatch(/^insert into/i);
      expect(await db.knex('notes').where({ title: 'plain' })).toHaveLength(1);
    });

    it('create answers 409 from the unique constraint after one INSERT, and 422 before any statement', async () => {
      await seed('taken');
      const duplicate = await call('POST', '/notes', { title: 'taken' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.sql).toHaveLength(1);
      const invalid = await call('POST', '/notes', { title: 'typed', price: 'cheap' });
      expect(invalid.status).toBe(422);
      expect(invalid.sql).toEqual([]);
    });

    it('update is one UPDATE whose WHERE holds the id and the soft-delete flag', async () => {
      const id = await seed('before');
      const updated = await call('PATCH', `/notes/${id}`, { title: 'after', price: 3 });
      expect(updated).toMatchObject({ status: 200, body: null });
      expect(updated.sql).toHaveLength(1);
      expect(updated.sql[0]).toMatch(/^update .* where .*is_deleted.*id/i);
      expect((await call('GET', `/notes/${id}`)).body).toMatchObject({
        title: 'after',
        price: 3,
        updated_at: expect.any(String),
      });
    });

    it('update of a missing or soft-deleted row is a 404 that changes nothing', async () => {
      const gone = await seed('gone', { is_deleted: true });
      const deleted = await call('PATCH', `/notes/${gone}`, { price: 9 });
      expect(deleted).toMatchObject({ status: 404, body: { detail: 'Item not found' } });
      // MariaDB may count changed rows only, so it confirms a miss with one read.
      expect(deleted.sql).toHaveLength(engine === 'mysql' ? 2 : 1);
      expect(await db.knex('notes').where({ id: gone }).first()).toMatchObject({ price: null });
      expect((await call('PATCH', '/notes/999', { price: 9 })).status).toBe(404);
    });

    it('update answers 409 when the unique constraint refuses the value, after one statement', async () => {
      await seed('one');
      const two = await seed('two');
      const clash = await call('PATCH', `/notes/${two}`, { title: 'one' });
      expect(clash.status).toBe(409);
      expect(clash.sql).toHaveLength(1);
    });

    it('update with the values the row already holds is a 200, not a 404', async () => {
      const id = await seed('same');
      await call('PATCH', `/notes/${id}`, { title: 'same' });
      const again = await call('PATCH', `/notes/${id}`, { title: 'same' });
      expect(again.status).toBe(200);
    });

    it('a soft delete is one UPDATE; a second one, a read and an update of it are 404s', async () => {
      const id = await seed('doomed');
      const deleted = await call('DELETE', `/notes/${id}`);
      expect(deleted).toMatchObject({ status: 200, body: null });
      expect(deleted.sql).toHaveLength(1);
      expect(deleted.sql[0]).toMatch(/^update .* where .*is_deleted.*id/i);
      expect(await db.knex('notes').where({ id }).first()).toMatchObject({ deleted_at: expect.anything() });
      const again = await call('DELETE', `/notes/${id}`);
      expect(again.status).toBe(404);
      expect(again.sql).toHaveLength(1);
      expect((await call('GET', `/notes/${id}`)).status).toBe(404);
      expect((await call('PATCH', `/notes/${id}`, { price: 1 })).status).toBe(404);
    });

    it('db_delete is one DELETE, soft-deleted rows included; a second one is a 404', async () => {
      const id = await seed('removed', { is_deleted: true });
      const removed = await call('DELETE', `/notes/db_delete/${id}`);
      expect(removed).toMatchObject({ status: 200, body: null });
      expect(removed.sql).toHaveLength(1);
      expect(removed.sql[0]).toMatch(/^delete from/i);
      expect(await db.knex('notes').where({ id })).toEqual([]);
      const again = await call('DELETE', `/notes/db_delete/${id}`);
      expect(again.status).toBe(404);
      expect(again.sql).toHaveLength(1);
    });

    it('restore is one UPDATE whose WHERE holds the flag (and one read on MariaDB); a second one is a 404', async () => {
      const id = await seed('restored', { is_deleted: true, deleted_at: new Date() });
      const restored = await call('POST', `/notes/${id}/restore`);
      expect(restored).toMatchObject({ status: 200, body: { id, title: 'restored', is_deleted: false } });
      expect(Object.keys(restored.body).sort()).toEqual([...NOTE_READ].sort());
      expect(restored.sql).toHaveLength(engine === 'mysql' ? 2 : 1);
      expect(restored.sql[0]).toMatch(/^update .* where .*is_deleted/i);
      expect(transactional(restored.sql)).toBe(false);
      expect(await db.knex('notes').where({ id }).first()).toMatchObject({ deleted_at: null });
      const again = await call('POST', `/notes/${id}/restore`);
      expect(again.status).toBe(404);
      expect(again.sql).toHaveLength(1);
    });

    it("the row-level scope goes in the WHERE of every write: another scope's row is a 404 and stays", async () => {
      const theirs = await seed('theirs', { org: 'b' });
      const mine = { 'x-org': 'a' };
      expect((await call('PATCH', `/scoped/${theirs}`, { price: 1 }, mine)).status).toBe(404);
      expect((await call('DELETE', `/scoped/${theirs}`, undefined, mine)).status).toBe(404);
      expect((await call('DELETE', `/scoped/db_delete/${theirs}`, undefined, mine)).status).toBe(404);
      expect(await db.knex('notes').where({ id: theirs }).first()).toMatchObject({ price: null, title: 'theirs' });
      await db.knex('notes').where({ id: theirs }).update({ is_deleted: true });
      expect((await call('POST', `/scoped/${theirs}/restore`, undefined, mine)).status).toBe(404);
      expect(await db.knex('notes').where({ id: theirs }).first()).toMatchObject({ is_deleted: expect.anything() });
      await db.knex('notes').where({ id: theirs }).update({ is_deleted: false });
      const updated = await call('PATCH', `/scoped/${theirs}`, { price: 1 }, { 'x-org': 'b' });
      expect(updated.status).toBe(200);
      expect(updated.sql).toHaveLength(1);
    });

    it('a read is one statement, a list page two (its rows and its count), a cursor page one', async () => {
      for (const title of ['l1', 'l2', 'l3']) await seed(title);
      const list = await call('GET', '/notes?limit=2');
      expect(list.body.total_count).toBe(3);
      expect(list.sql).toHaveLength(2);
      const first = await call('GET', '/notes?cursor=&limit=2');
      expect(first.body.data).toHaveLength(2);
      expect(first.sql).toHaveLength(1);
      const next = await call('GET', `/notes?cursor=${first.body.next_cursor}&limit=2`);
      expect(next.body).toMatchObject({ data: [{ title: 'l3' }], next_cursor: null });
      expect(next.sql).toHaveLength(1);
    });

    // A bulk write is one transaction; within it, one statement per batch (and on MariaDB
    // one read of the rows it answers). MariaDB's upsert also sets and reads back the session
    // variable that notes items meeting another row: no round trip to the table.
    const statements = (sql: string[]) =>
      sql.filter((statement) => !/^(begin|commit|start transaction|(set|select) @crudsmith_missed)/i.test(statement));
    const readBack = engine === 'mysql' ? 1 : 0;

    it('bulk create of N rows is one multi-row INSERT per batch, in one transaction', async () => {
      // Rows of one key set: SQLite batches rows by the keys they give (knex would write NULL for a missing one).
      const created = await call('POST', '/notes/bulk', [{ title: 'n1' }, { title: 'n2' }, { title: 'n3' }]);
      expect(created.status).toBe(201);
      expect(created.body.map((row: { title: string }) => row.title)).toEqual(['n1', 'n2', 'n3']);
      expect(transactional(created.sql)).toBe(true);
      expect(statements(created.sql)).toHaveLength(1 + readBack);
      expect(statements(created.sql)[0]).toMatch(/^insert into/i);
      const upserted = await call('POST', '/notes/bulk?on_conflict=title', [
        { title: 'n1', price: 9 },
        { title: 'n4', price: 4 },
      ]);
      expect(upserted.status).toBe(201);
      expect(upserted.body[0]).toMatchObject({ id: created.body[0].id, price: 9 });
      expect(statements(upserted.sql)).toHaveLength(1 + readBack);
      expect(statements(upserted.sql)[0]).toMatch(/^insert into .*(on conflict|on duplicate key)/i);
    });

    it('bulk update and bulk delete are one conditional statement each; PUT reads the row, then upserts it', async () => {
      for (const title of ['u1', 'u2']) await seed(title);
      const updated = await call('PATCH', '/notes/bulk', { filter: { title__in: ['u1', 'u2'] }, set: { price: 1 } });
      expect(updated).toMatchObject({ status: 200, body: { count: 2 } });
      expect(statements(updated.sql)).toHaveLength(1);
      expect(statements(updated.sql)[0]).toMatch(/^update .* where /i);
      const byIds = await call('DELETE', '/notes/bulk', { ids: [1, 2, 3] }, { prefer: 'max-affected=5' });
      expect(byIds).toMatchObject({ status: 200, body: { count: 2 } });
      expect(statements(byIds.sql)).toHaveLength(1);
      expect(statements(byIds.sql)[0]).toMatch(/^update .* where .*is_deleted/i);
      const put = await call('PUT', '/notes/77', { title: 'put' });
      expect(put).toMatchObject({ status: 201, body: { id: 77, title: 'put' } });
      expect(statements(put.sql)).toHaveLength(2 + readBack);
    });

    it('a model with an objection hook keeps its transaction, and the hook runs', async () => {
      const id = await seed('hooked');
      const updated = await call('PATCH', `/hooked/${id}`, { price: 4 });
      expect(updated.status).toBe(200);
      expect(hooked).toEqual(['update']);
      expect(transactional(updated.sql)).toBe(true);
      expect(updated.sql.filter((statement) => !/^(begin|commit)/i.test(statement))).toHaveLength(2);
      expect((await call('PATCH', '/hooked/999', { price: 4 })).status).toBe(404);
    });
  });
});
