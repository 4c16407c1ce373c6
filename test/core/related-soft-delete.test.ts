import { Model } from 'objection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrudRepository, softDelete } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

// A related row that its own model soft-deletes is hidden from joins, whatever the
// model's @SoftDelete calls its flag (not only the default `is_deleted`).
class Keeper extends Model {
  static override tableName = 'keepers';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' }, archived: { type: 'boolean' } },
  };
}
softDelete(Keeper, { isDeletedColumn: 'archived', deletedAtColumn: 'archived_at' });

class Shelf extends Model {
  static override tableName = 'shelves';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, label: { type: 'string' }, keeper_id: { type: 'integer' } },
  };
  static override get relationMappings() {
    return {
      keeper: {
        relation: Model.BelongsToOneRelation,
        modelClass: Keeper,
        join: { from: 'shelves.keeper_id', to: 'keepers.id' },
      },
    };
  }
}

describe.each(ENGINES)('related soft delete on %s', (engine) => {
  let db: TestDatabase;
  const shelves = new CrudRepository(Shelf);

  beforeAll(async () => {
    db = await openDatabase(engine);
    await db.knex.schema.createTable('keepers', (t) => {
      t.increments('id');
      t.string('name');
      t.boolean('archived').notNullable().defaultTo(false);
      t.timestamp('archived_at').nullable();
    });
    await db.knex.schema.createTable('shelves', (t) => {
      t.increments('id');
      t.string('label');
      t.integer('keeper_id').unsigned().references('keepers.id');
    });
    await db.knex('keepers').insert([
      { name: 'Kept', archived: false },
      { name: 'Gone', archived: true },
    ]);
    await db.knex('shelves').insert([
      { label: 'S1', keeper_id: 1 },
      { label: 'S2', keeper_id: 2 },
    ]);
  });
  afterAll(() => db?.destroy());

  it('hides a related row its own @SoftDelete flag marks deleted', async () => {
    const { data } = await shelves.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'keeper', schemaToSelect: ['id', 'name'] }],
    });
    expect(data.map((s) => [s.label, s.keeper])).toEqual([
      ['S1', { id: 1, name: 'Kept' }],
      ['S2', null],
    ]);
  });

  it('drops the owner of an inner join whose related row is soft-deleted', async () => {
    const { data } = await shelves.getMultiJoined(db.knex, {
      joinsConfig: [{ relation: 'keeper', joinType: 'inner' }],
    });
    expect(data.map((s) => s.label)).toEqual(['S1']);
  });
});
