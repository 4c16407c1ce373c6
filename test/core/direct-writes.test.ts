import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { Model, snakeCaseMappers } from 'objection';
import { CrudRepository } from '@crudsmith/core';
import { plainValues, writesDirectly } from '../../core/src/data/direct-writes';
import { modelInfo } from '../../core/src/model/model-info';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

// A model objection would add nothing to is written through knex directly, in as few
// statements as the engine allows; these cases hold that lane to what objection stores
// and answers, and keep every hooked model on objection.

const ts = { type: ['string', 'null'], format: 'date-time' };
const schema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string', maxLength: 100 },
    price: { type: ['number', 'null'] },
    active: { type: 'boolean' },
    tags: { type: ['array', 'null'] },
    created_at: ts,
    updated_at: ts,
    note: { type: ['string', 'null'] },
  },
};

class Gadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
}

/** The same table through objection: a hook that changes nothing keeps it on objection's lane. */
class ObjectionGadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
  override $beforeInsert() {}
}

class NotingGadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
  override $beforeInsert() {
    (this as any).note = 'inserted by hook';
  }
  override $beforeUpdate() {
    (this as any).note = 'updated by hook';
  }
}

const deletedByHook: unknown[] = [];
class WatchedGadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
  static override beforeDelete({ asFindQuery }: any) {
    deletedByHook.push(asFindQuery);
  }
}

class AuditedBase extends Model {
  override $beforeUpdate() {}
}
class InheritedHookGadget extends AuditedBase {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
}

class MappedGadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = schema;
  static override columnNameMappers = snakeCaseMappers();
}

async function createGadgets(knex: Knex): Promise<void> {
  await knex.schema.createTable('gadgets', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.decimal('price', 10, 2).nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.json('tags').nullable();
    t.datetime('created_at', { precision: 3 }).nullable();
    t.datetime('updated_at', { precision: 3 }).nullable();
    t.string('note', 100).nullable();
  });
}

/** The SQL (and bindings, dates aside) a piece of work sends. */
async function statementsOf(knex: Knex, work: () => Promise<unknown>): Promise<{ answer: unknown; sql: string[] }> {
  const sql: string[] = [];
  const listen = (query: { sql: string }) => sql.push(query.sql);
  knex.on('query', listen);
  try {
    return { answer: await work(), sql };
  } finally {
    knex.off('query', listen);
  }
}

describe('which models are written directly', () => {
  it('a model overriding nothing of objection is written directly', () => {
    expect(writesDirectly(modelInfo(Gadget))).toBe(true);
  });

  it('an instance hook, a static hook, a hook of a base class or column mappers keep objection', () => {
    expect(writesDirectly(modelInfo(ObjectionGadget))).toBe(false);
    expect(writesDirectly(modelInfo(WatchedGadget))).toBe(false);
    expect(writesDirectly(modelInfo(InheritedHookGadget))).toBe(false);
    expect(writesDirectly(modelInfo(MappedGadget))).toBe(false);
  });

  it('an object or array for a JSON column, or an empty row, is left to objection to serialise', () => {
    const info = modelInfo(Gadget);
    expect(plainValues(info, { name: 'a', price: 1, active: true, created_at: new Date(), note: null })).toBe(true);
    expect(plainValues(info, { name: 'a', tags: ['x'] })).toBe(false);
    expect(plainValues(info, {})).toBe(false);
  });
});

describe.each(ENGINES)('direct writes on %s', (engine) => {
  let db: TestDatabase;

  beforeEach(async () => {
    await db?.destroy();
    db = await openDatabase(engine);
    await createGadgets(db.knex);
    deletedByHook.length = 0;
  });
  afterAll(() => db?.destroy());

  it('create answers the row objection answers, in one INSERT … RETURNING (an INSERT and one read on MariaDB) instead of a transaction', async () => {
    const direct = await statementsOf(db.knex, () =>
      new CrudRepository(Gadget).create(db.knex, { name: 'one', price: '2.50', active: false }),
    );
    const viaObjection = await statementsOf(db.knex, () =>
      new CrudRepository(ObjectionGadget).create(db.knex, { name: 'two', price: '2.50', active: false }),
    );
    expect(viaObjection.sql).toEqual([
      'BEGIN;',
      expect.stringMatching(/^insert/),
      expect.stringMatching(/^select/),
      'COMMIT;',
    ]);
    expect(direct.sql).toEqual(
      engine === 'mysql'
        ? [viaObjection.sql[1], viaObjection.sql[2]]
        : [expect.stringMatching(/^insert into .* returning /)],
    );
    const unique = (row: any) => ({ ...row, id: undefined, name: undefined, created_at: undefined });
    expect(unique(direct.answer)).toEqual(unique(viaObjection.answer));
    expect(direct.answer).toMatchObject({ id: 1, name: 'one', price: 2.5, active: false, tags: null, note: null });
    expect((viaObjection.answer as any).id).toBe(2);
  });

  it('create stamps the creation time unless the body gives it or createdAtColumn is null', async () => {
    const before = Date.now();
    const stamped = await new CrudRepository(Gadget).create(db.knex, { name: 'stamped' });
    expect((stamped.created_at as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const given = await new CrudRepository(Gadget).create(db.knex, {
      name: 'given',
      created_at: '2020-01-02T03:04:05.006Z',
    });
    expect(given.created_at).toEqual(new Date('2020-01-02T03:04:05.006Z'));
    const unstamped = await new CrudRepository(Gadget, { createdAtColumn: null }).create(db.knex, {
      name: 'unstamped',
    });
    expect(unstamped.created_at).toBeNull();
  });

  it('create answers the id the body names', async () => {
    const row = await new CrudRepository(Gadget).create(db.knex, { id: 41, name: 'forty-one' });
    expect(row.id).toBe(41);
    expect(await new CrudRepository(Gadget).get(db.knex, { id: 41 })).toMatchObject({ name: 'forty-one' });
  });

  it('a JSON column given an array is still stored as JSON, through objection', async () => {
    const row = await new CrudRepository(Gadget).create(db.knex, { name: 'tagged', tags: ['a', 'b'] });
    const stored = await db.knex('gadgets').where({ id: row.id }).first();
    const tags = typeof stored.tags === 'string' ? JSON.parse(stored.tags) : stored.tags;
    expect(tags).toEqual(['a', 'b']);
  });

  it('update is one conditional UPDATE where objection reads the id first in a transaction, and stores the same', async () => {
    const repo = new CrudRepository(Gadget);
    await repo.create(db.knex, { name: 'a' });
    await repo.create(db.knex, { name: 'b' });
    const direct = await statementsOf(db.knex, () =>
      repo.update(db.knex, { price: 3, note: 'x' }, { filters: { id: 1 } }),
    );
    const viaObjection = await statementsOf(db.knex, () =>
      new CrudRepository(ObjectionGadget).update(db.knex, { price: 3, note: 'x' }, { filters: { id: 2 } }),
    );
    expect(direct.sql).toEqual([expect.stringMatching(/^update .* where /)]);
    expect(viaObjection.sql).toEqual([
      'BEGIN;',
      expect.stringMatching(/^select/),
      expect.stringMatching(/^update/),
      'COMMIT;',
    ]);
    expect(await repo.get(db.knex, { id: 1 })).toMatchObject({ price: 3, note: 'x' });
    expect(await repo.get(db.knex, { id: 2 })).toMatchObject({ price: 3, note: 'x' });
  });

  it('dbDelete is one conditional DELETE where objection reads the id first in a transaction, and removes the same', async () => {
    const repo = new CrudRepository(Gadget);
    await repo.create(db.knex, { name: 'a' });
    await repo.create(db.knex, { name: 'b' });
    const direct = await statementsOf(db.knex, () => repo.dbDelete(db.knex, { id: 1 }));
    const viaObjection = await statementsOf(db.knex, () =>
      new CrudRepository(ObjectionGadget).dbDelete(db.knex, { id: 2 }),
    );
    expect(direct.sql).toEqual([expect.stringMatching(/^delete from .* where /)]);
    expect(viaObjection.sql).toEqual([
      'BEGIN;',
      expect.stringMatching(/^select/),
      expect.stringMatching(/^delete/),
      'COMMIT;',
    ]);
    expect(await repo.count(db.knex)).toBe(0);
  });

  it("a hooked model's instance hooks still run on create and update", async () => {
    const repo = new CrudRepository(NotingGadget);
    const created = await repo.create(db.knex, { name: 'hooked' });
    expect(created.note).toBe('inserted by hook');
    await repo.update(db.knex, { price: 1 }, { filters: { id: created.id } });
    expect(await repo.get(db.knex, { id: created.id })).toMatchObject({ price: 1, note: 'updated by hook' });
  });

  it("a hooked model's static delete hook still runs on dbDelete", async () => {
    const repo = new CrudRepository(WatchedGadget);
    await repo.create(db.knex, { name: 'watched' });
    await repo.dbDelete(db.knex, { id: 1 });
    expect(deletedByHook).toHaveLength(1);
    expect(await repo.count(db.knex)).toBe(0);
  });
});
