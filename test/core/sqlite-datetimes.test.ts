// On SQLite a datetime has no type of its own: text compares as text, and any number sorts
// before any text. Rows the database's default (CURRENT_TIMESTAMP) writes and rows
// crudsmith writes must sort, page and filter as one timeline, and read back as Dates.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import { CrudRepository } from '@crudsmith/core';
import { openDatabase, type TestDatabase } from '../fixtures/db';

class Event extends Model {
  static override tableName = 'events';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  };
}

describe('datetimes on SQLite', () => {
  let db: TestDatabase;
  let events: CrudRepository<typeof Event>;
  const stored = async () =>
    (await db.knex('events').orderBy('id').select('name', 'created_at', db.knex.raw('typeof(created_at) as kind'))) as {
      name: string;
      created_at: unknown;
      kind: string;
    }[];

  beforeEach(async () => {
    db = await openDatabase('sqlite');
    await db.knex.schema.createTable('events', (t) => {
      t.increments('id');
      t.string('name').notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(db.knex.fn.now());
      t.datetime('updated_at', { precision: 3 }).nullable();
    });
    events = new CrudRepository(Event);
    // What the database's default writes, and what the app's own code wrote by its side.
    await db.knex('events').insert({ name: 'default, 10:00:00', created_at: db.knex.raw("'2024-01-01 10:00:00'") });
    await db.knex('events').insert({ name: 'default, now' });
    // What crudsmith writes: a stamped creation time, and given ones.
    await events.create(db.knex, { name: 'crudsmith, 09:59:59.500', created_at: '2024-01-01T09:59:59.500Z' });
    await events.create(db.knex, { name: 'crudsmith, 10:00:00', created_at: '2024-01-01T10:00:00Z' });
    await events.create(db.knex, { name: 'crudsmith, 10:00:00.250', created_at: '2024-01-01T10:00:00.250+00:00' });
    await events.create(db.knex, { name: 'crudsmith, now' });
  });
  afterEach(() => db.destroy());

  const timeline = [
    'crudsmith, 09:59:59.500',
    'default, 10:00:00',
    'crudsmith, 10:00:00',
    'crudsmith, 10:00:00.250',
    'default, now',
    'crudsmith, now',
  ];

  it('stores what crudsmith writes in the form CURRENT_TIMESTAMP writes, milliseconds only when there are some', async () => {
    const rows = await stored();
    expect(rows.every((row) => row.kind === 'text')).toBe(true);
    const byName = Object.fromEntries(rows.map((row) => [row.name, row.created_at]));
    expect(byName['crudsmith, 10:00:00']).toBe('2024-01-01 10:00:00');
    expect(byName['crudsmith, 10:00:00.250']).toBe('2024-01-01 10:00:00.250');
    expect(byName['crudsmith, now']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$/);
    // An update stamps updated_at the same way.
    await events.update(db.knex, { name: 'renamed' }, { filters: { id: 1 } });
    const [{ updated_at: updated }] = await db.knex('events').where({ id: 1 }).select('updated_at');
    expect(updated).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$/);
  });

  it('sorts both kinds of rows as one timeline, both ways', async () => {
    const asc = await events.getMulti(db.knex, { sortColumns: 'created_at', sortOrders: 'asc' });
    expect(asc.data.map((row) => row.name)).toEqual(timeline);
    const desc = await events.getMulti(db.knex, { sortColumns: 'created_at', sortOrders: 'desc' });
    expect(desc.data.map((row) => row.name)).toEqual([
      'crudsmith, now',
      'default, now',
      'crudsmith, 10:00:00.250',
      // Equal times: the key breaks the tie in the sort's direction, the later row first.
      'crudsmith, 10:00:00',
      'default, 10:00:00',
      'crudsmith, 09:59:59.500',
    ]);
  });

  it('pages by cursor through both kinds of rows without skipping or repeating one', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await events.getMultiByCursor(db.knex, {
        sortColumns: ['created_at'],
        sortOrders: ['asc'],
        limit: 2,
        cursor,
      });
      seen.push(...page.data.map((row) => row.name as string));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(timeline);
  });

  it('filters both kinds of rows by instant: __gte, __lt, __eq and between', async () => {
    const names = async (filters: Record<string, unknown>) =>
      (await events.select(db.knex, filters, { sortColumns: 'created_at' })).map((row) => row.name);
    expect(await names({ created_at__gte: '2024-01-01T10:00:00Z' })).toEqual(timeline.slice(1));
    expect(await names({ created_at__lt: '2024-01-01T10:00:00Z' })).toEqual(['crudsmith, 09:59:59.500']);
    expect(await names({ created_at: '2024-01-01T10:00:00.000Z' })).toEqual([
      'default, 10:00:00',
      'crudsmith, 10:00:00',
    ]);
    expect(await names({ created_at__gt: '2024-01-01 10:00:00', created_at__lte: '2024-01-01T10:00:00.250Z' })).toEqual(
      ['crudsmith, 10:00:00.250'],
    );
    expect(await names({ created_at__between: ['2024-01-01T09:59:59.500Z', '2024-01-01T10:00:00Z'] })).toEqual(
      timeline.slice(0, 3),
    );
  });

  it('reads every form back as the same Date, an earlier epoch-milliseconds row included, never rewriting it', async () => {
    await db.knex('events').insert({ name: 'epoch', created_at: Date.parse('2023-06-01T12:00:00.125Z') });
    const rows = await events.select(db.knex, {}, { sortColumns: 'id' });
    const at = Object.fromEntries(rows.map((row) => [row.name, row.created_at]));
    expect(at['default, 10:00:00']).toEqual(new Date('2024-01-01T10:00:00Z'));
    expect(at['crudsmith, 10:00:00']).toEqual(new Date('2024-01-01T10:00:00Z'));
    expect(at['crudsmith, 10:00:00.250']).toEqual(new Date('2024-01-01T10:00:00.250Z'));
    expect(at.epoch).toEqual(new Date('2023-06-01T12:00:00.125Z'));
    expect((await stored()).find((row) => row.name === 'epoch')?.kind).toBe('integer');
  });
});
