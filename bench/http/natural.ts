import type { Knex } from 'knex';
import type { Engine } from '../lib/db';
import { rowMapper } from '../lib/items';
import { READ_FIELDS } from './crudsmith-apps';
import { bulkCreate, exportRows } from './natural-batch';
import {
  idOf,
  invalid,
  itemValues,
  listQuery,
  notFound,
  readAnswer,
  type FloorHandlers,
  type Row,
} from './floor-input';

// The natural floor: the four endpoints as a competent person writes them with knex for
// this one table, without looking at the SQL crudsmith sends. One statement per write
// (`INSERT … RETURNING`, `UPDATE … WHERE id = ? AND NOT is_deleted` with its affected
// rows deciding the 404), one per read, and a list's page and count run together. It
// answers the JSON crudsmith answers (the suite checks that, and counts the statements
// of both), and every ratio of the HTTP table is taken against it.

/**
 * The four endpoints over `items`, as a person writes them. `plainSort`: a sorted list is
 * `ORDER BY price DESC` (or `ASC`) alone, with neither NULLs placement nor tie-breaker, as
 * most hand-written handlers order it (the bench's lists filter `price__gte`, so no NULL
 * price is in them).
 */
export function naturalHandlers(knex: Knex, engine: Engine, { plainSort = false } = {}): FloorHandlers {
  const map = rowMapper(engine);
  const columns = [...READ_FIELDS];

  return {
    async read(idText, ifNoneMatch) {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const row = await knex('items').select(columns).where({ id, is_deleted: false }).first();
      return row ? readAnswer(map(row), ifNoneMatch) : notFound;
    },

    async list(query) {
      const asked = listQuery(query);
      if ('status' in asked) return asked;
      if (query.after !== undefined) {
        // A keyset page: the rows after the last id the client saw, one more to tell whether others follow.
        const after = query.after === '' ? undefined : idOf(String(query.after));
        const page = knex('items').select(columns).where('is_deleted', false);
        if (after !== undefined) page.where('id', '>', after);
        const found = (await page.orderBy('id').limit(asked.limit + 1)) as Row[];
        const data = found.slice(0, asked.limit).map(map);
        return {
          status: 200,
          json: { data, next_cursor: found.length > asked.limit ? String(data[data.length - 1].id) : null },
        };
      }
      const { category, min, sort, offset, limit } = asked;
      const matching = () => {
        const qb = knex('items').where('is_deleted', false);
        if (category !== undefined) qb.where('category', category);
        if (min !== undefined) qb.where('price', '>=', min);
        return qb;
      };
      const page = matching().select(columns);
      // The id breaks ties in the price's direction, so pages never overlap. NULL prices sort last descending, first
      // ascending: SQLite's own order, PostgreSQL's when told. (knex 3.3's `nulls` option on
      // SQLite writes `(price is null)` in place of the price, so it is not passed there.)
      const nulls = engine === 'postgres' ? (sort === '-price' ? 'last' : 'first') : undefined;
      if (sort !== undefined) page.orderBy('price', sort === '-price' ? 'desc' : 'asc', plainSort ? undefined : nulls);
      if (!plainSort || sort === undefined) page.orderBy('id', sort === '-price' ? 'desc' : 'asc');
      page.offset(offset).limit(limit);
      const [rows, [{ total }]] = await Promise.all([page, matching().count({ total: '*' })]);
      return { status: 200, json: { data: (rows as Row[]).map(map), total_count: Number(total) } };
    },

    async create(body) {
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      const [row] = await knex('items')
        .insert({ ...values, created_at: new Date() })
        .returning(columns);
      return { status: 201, json: map(row) };
    },

    async update(idText, body) {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      const changed = await knex('items')
        .where({ id, is_deleted: false })
        .update({ ...values, updated_at: new Date() });
      return changed > 0 ? { status: 200, json: null } : notFound;
    },

    bulkCreate: (body) => bulkCreate(knex, map, body),
    export: async (query) => exportRows(knex, map, query),
  };
}
