// On PostgreSQL, a query the compiled-SQL cache answers is sent as a named prepared
// statement, parsed once per connection. These cases read the connection's prepared
// statements from PostgreSQL itself, and check that a schema change or a pooler that
// loses names never turns into a failed request.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import knexFactory, { type Knex } from 'knex';
import { CrudRepository, usePreparedStatements } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

class Gadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = {
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      size: { type: 'integer' },
      is_deleted: { type: 'boolean' },
    },
  };
}

const repo = new CrudRepository(Gadget, { isDeletedColumn: 'is_deleted' });

describe.runIf(ENGINES.includes('postgres'))('named prepared statements on PostgreSQL', () => {
  let db: TestDatabase;
  // One pooled connection, so that pg_prepared_statements shows what the reads prepared.
  let knex: Knex;

  beforeAll(async () => {
    db = await openDatabase('postgres');
    knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 1, max: 1 } });
  });
  afterAll(async () => {
    await knex?.destroy();
    await db?.destroy();
  });
  afterEach(async () => {
    usePreparedStatements(knex, true);
    await knex.schema.dropTableIfExists('gadgets');
  });

  async function createGadgets(): Promise<void> {
    await knex.schema.createTable('gadgets', (t) => {
      t.increments('id');
      t.string('name', 50).notNullable();
      t.integer('size').nullable();
      t.boolean('is_deleted').notNullable().defaultTo(false);
    });
    await knex('gadgets').insert([
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
      { name: 'c', size: 3, is_deleted: true },
    ]);
  }

  const prepared = async () =>
    (await knex.raw("select name from pg_prepared_statements where name like 'crudsmith_%'")).rows.map(
      (row: { name: string }) => row.name,
    ) as string[];

  it('parses a repeated read once per connection, under one name', async () => {
    await createGadgets();
    await knex.raw('deallocate all');
    // The first read of a shape learns it; the ones after are sent by name.
    for (let i = 0; i < 3; i++) expect(await repo.get(knex, { id: 1 })).toMatchObject({ id: 1, name: 'a', size: 1 });
    expect(await repo.get(knex, { id: 2 })).toMatchObject({ id: 2, name: 'b' });
    expect(await repo.get(knex, { id: 3 })).toBeNull();
    expect(await prepared()).toHaveLength(1);
  });

  it('writes by name too, with the same answers', async () => {
    await createGadgets();
    await knex.raw('deallocate all');
    for (let i = 0; i < 3; i++) await repo.update(knex, { size: 10 + i }, { filters: { id: 2 } });
    expect(await knex('gadgets').where({ id: 2 }).first()).toMatchObject({ size: 12 });
    expect((await prepared()).length).toBeGreaterThanOrEqual(1);
  });

  it('answers correctly after the schema changes the columns a kept statement answers', async () => {
    await createGadgets();
    for (let i = 0; i < 3; i++) await repo.get(knex, { id: 1 });
    // PostgreSQL refuses to run a kept plan whose result type changed: the read is sent unnamed instead.
    await knex.raw('alter table gadgets alter column size type bigint');
    const row = await repo.get(knex, { id: 1 });
    expect(row).toMatchObject({ id: 1, name: 'a' });
    expect(Number(row!.size)).toBe(1);
    expect(Number((await repo.get(knex, { id: 2 }))!.size)).toBe(2);
  });

  it('answers correctly when the connection has lost its statements, as behind a pooler', async () => {
    await createGadgets();
    for (let i = 0; i < 3; i++) await repo.get(knex, { id: 1 });
    // What a transaction-mode pooler does: the next query lands where the name was never parsed.
    await knex.raw('deallocate all');
    expect(await repo.get(knex, { id: 2 })).toMatchObject({ id: 2, name: 'b' });
    expect(await repo.get(knex, { id: 1 })).toMatchObject({ id: 1, name: 'a' });
    // From then on this knex sends its queries unnamed.
    expect(await prepared()).toHaveLength(0);
  });

  it('answers correctly when the name is already taken on the server connection (42P05), as behind a pooler that hides itself', async () => {
    await createGadgets();
    await knex.raw('deallocate all');
    // The first read of a shape learns it, the second names it. (A count: the schema-change
    // case above leaves reads by id unnamed in this process.)
    for (let i = 0; i < 2; i++) await repo.count(knex, { size: 1 });
    const [name] = await prepared();
    expect(name).toMatch(/^crudsmith_/);
    // Another client whose server connection already holds that name, as a shared pooled
    // connection would: its first read of the shape meets "prepared statement already exists".
    const other = knexFactory({ client: 'pg', connection: db.url, pool: { min: 1, max: 1 } });
    try {
      await other.raw(`prepare "${name}" as select 1`);
      expect(await repo.count(other, { size: 2 })).toBe(1);
      expect(await repo.count(other, { size: 3 })).toBe(0);
      // Naming is off for that knex from then on: only the statement prepared by hand is there.
      const onOther = (await other.raw("select name from pg_prepared_statements where name like 'crudsmith_%'")).rows;
      expect(onOther).toEqual([{ name }]);
    } finally {
      await other.destroy();
    }
  });

  it('sends nothing by name once turned off for the knex instance', async () => {
    await createGadgets();
    await knex.raw('deallocate all');
    usePreparedStatements(knex, false);
    for (let i = 0; i < 3; i++) expect(await repo.get(knex, { id: 1 })).toMatchObject({ id: 1 });
    expect(await prepared()).toHaveLength(0);
  });
});
