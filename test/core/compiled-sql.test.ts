import { afterAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import { reuseCompiledSql } from '../../core/src/data/compiled-sql';

// The repository reuses the SQL knex compiled for an earlier read of the same shape. These
// cases hold it to knex's own output (SQL, bindings, method) on every dialect, for values
// that change the SQL (offset 0, list lengths, null) and values that must not.

type Make = (k: Knex, v: number) => Knex.QueryBuilder;

const SHAPES: Record<string, Make> = {
  'read by id': (k, v) =>
    k
      .from('items')
      .select(['items.id', 'items.name'])
      .where('items.is_deleted', false)
      .where('items.id', v)
      .orderBy('items.id', 'asc')
      .limit(1),
  'list with filters, sort and window': (k, v) =>
    k
      .from('items')
      .where('items.price', '>=', v)
      .whereIn(
        'items.id',
        Array.from({ length: (v % 3) + 1 }, (_, i) => v + i),
      )
      .whereNull('items.deleted_at')
      .whereBetween('items.price', [v, v * 2])
      .whereRaw('?? like ? escape ?', ['items.name', `a${v}%`, '\\'])
      .select(['items.id'])
      .orderBy([
        { column: 'items.price', order: 'desc', nulls: 'last' },
        { column: 'items.id', order: 'asc' },
      ])
      .offset(v % 2 ? v : 0)
      .limit(20),
  count: (k, v) =>
    k
      .from('items')
      .where('items.price', '>=', v)
      .where('items.name', v % 2 ? `n${v}` : '')
      .count({ count: '*' }),
  'first, dates and nulls': (k, v) =>
    k
      .from('items')
      .whereIn('items.category', ['a', null])
      .where('items.created_at', '<', new Date(v * 1000))
      .first(['items.id']),
  'raw with a literal question mark': (k, v) =>
    k
      .from('items')
      .whereRaw("?? = ? and 'a\\?' <> ?", ['items.name', `x${v}`, 'y'])
      .select(k.raw('1 as one'))
      .limit(v),
  'insert of one row': (k, v) =>
    k('items').insert(
      v % 2 ? { name: `n${v}`, price: v, created_at: new Date(v) } : { name: null, price: v, created_at: new Date(v) },
      ['id'],
    ),
  'update by ids': (k, v) =>
    k('items')
      .update({ price: v, updated_at: new Date(v * 1000) }, ['id'])
      .whereIn('id', [v, v + 1]),
  'delete by ids': (k, v) => k('items').whereIn('id', [v]).del(),
  'subquery (compiled as usual)': (k, v) =>
    k
      .from('items')
      .whereExists((sub) => sub.select(k.raw('1')).from('tags').where('tags.item_id', v))
      .select(['items.id']),
  'nested conditions (compiled as usual)': (k, v) =>
    k
      .from('items')
      .where((sub) => sub.where('items.a', v).orWhereNull('items.a'))
      .select(['items.id']),
};

const clients = ['pg', 'mysql2', 'better-sqlite3'].map((client) => knexFactory({ client, useNullAsDefault: true }));
afterAll(() => Promise.all(clients.map((k) => k.destroy())));

/** Counts knex's own compiles while `work` runs. */
function countCompiles(k: Knex, work: () => void): number {
  const proto = Object.getPrototypeOf(k.from('x')) as { toSQL: (...args: unknown[]) => unknown };
  const original = proto.toSQL;
  let compiles = 0;
  proto.toSQL = function (this: unknown, ...args: unknown[]) {
    compiles++;
    return original.apply(this, args);
  };
  try {
    work();
  } finally {
    proto.toSQL = original;
  }
  return compiles;
}

describe('reuseCompiledSql', () => {
  for (const k of clients) {
    describe(k.client.config.client as string, () => {
      for (const [name, make] of Object.entries(SHAPES)) {
        it(`compiles ${name} exactly as knex does, for every value`, () => {
          for (const v of [3, 3, 7, 0, 20, 21, 1, 4]) {
            const plain = make(k, v).toSQL();
            const cached = reuseCompiledSql(make(k, v)).toSQL();
            expect(cached.sql).toBe(plain.sql);
            expect(cached.bindings).toEqual(plain.bindings);
            expect(cached.method).toBe(plain.method);
            expect(cached.toNative()).toEqual(plain.toNative());
          }
        });
      }

      for (const name of [
        'read by id',
        'list with filters, sort and window',
        'count',
        'insert of one row',
        'update by ids',
        'delete by ids',
      ]) {
        it(`compiles ${name} twice when its shape is first seen, then never again`, () => {
          const make = SHAPES[name];
          const first = countCompiles(k, () => reuseCompiledSql(make(k, 101)).toSQL());
          const later = countCompiles(k, () => {
            for (const v of [103, 105, 107, 109]) reuseCompiledSql(make(k, v)).toSQL();
          });
          expect(first).toBeLessThanOrEqual(2);
          expect(later).toBe(0);
        });
      }

      it('compiles a builder it cannot take apart as usual, every time', () => {
        const nested = SHAPES['nested conditions (compiled as usual)'];
        const compiles = countCompiles(k, () => {
          for (let v = 1; v <= 5; v++) reuseCompiledSql(nested(k, v)).toSQL();
        });
        expect(compiles).toBe(5);
      });

      it('follows a column list changed in place, and names a frozen one by identity', () => {
        const columns = ['items.id', 'items.name'];
        const first = reuseCompiledSql(k.from('items').select(columns).where('items.id', 1)).toSQL().sql;
        columns[1] = 'items.price';
        const second = reuseCompiledSql(k.from('items').select(columns).where('items.id', 1)).toSQL().sql;
        expect(second).toBe(k.from('items').select(['items.id', 'items.price']).where('items.id', 1).toSQL().sql);
        expect(second).not.toBe(first);
        const frozen = Object.freeze(['items.id', 'items.category']) as string[];
        const other = Object.freeze(['items.id', 'items.created_at']) as string[];
        for (let i = 0; i < 3; i++) {
          expect(reuseCompiledSql(k.from('items').select(frozen).where('items.id', i)).toSQL().sql).toBe(
            k.from('items').select(frozen).where('items.id', i).toSQL().sql,
          );
          expect(reuseCompiledSql(k.from('items').select(other).where('items.id', i)).toSQL().sql).toBe(
            k.from('items').select(other).where('items.id', i).toSQL().sql,
          );
        }
      });

      it('gives each query its own uid, as knex does', () => {
        const read = SHAPES['read by id'];
        const a = reuseCompiledSql(read(k, 1)).toSQL() as unknown as { __knexQueryUid: string };
        const b = reuseCompiledSql(read(k, 1)).toSQL() as unknown as { __knexQueryUid: string };
        expect(a.__knexQueryUid).not.toBe(b.__knexQueryUid);
      });

      it('sees changes made after it was called (a start listener may still add a condition)', () => {
        const qb = reuseCompiledSql(SHAPES['read by id'](k, 5));
        qb.where('items.owner_id', 9);
        expect(qb.toSQL().sql).toBe(SHAPES['read by id'](k, 5).where('items.owner_id', 9).toSQL().sql);
      });
    });
  }

  it('reads the same rows on SQLite, through a transaction as well', async () => {
    const k = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    try {
      await k.schema.createTable('items', (t) => {
        t.increments('id');
        t.string('name');
      });
      await k('items').insert([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
      const byName = (db: Knex, name: string) =>
        reuseCompiledSql(db.from('items').select(['items.id']).where('items.name', name).limit(1));
      expect(await byName(k, 'a')).toEqual([{ id: 1 }]);
      expect(await byName(k, 'c')).toEqual([{ id: 3 }]);
      await k.transaction(async (trx) => {
        expect(await byName(trx, 'b')).toEqual([{ id: 2 }]);
      });
    } finally {
      await k.destroy();
    }
  });
});
