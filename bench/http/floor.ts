import type { Knex } from 'knex';
import type { Engine } from '../lib/db';
import { rowMapper } from '../lib/items';
import { READ_FIELDS } from './crudsmith-apps';
import {
  idOf,
  invalid,
  itemValues,
  listQuery,
  notFound,
  readAnswer,
  type Answer,
  type FloorHandlers,
  type Row,
} from './floor-input';

export type { Answer, FloorHandlers } from './floor-input';

// The same-SQL floor: the four endpoints by hand, sending exactly the SQL crudsmith sends
// (the suite checks it) and answering the same JSON, so that its row measures framework
// and library overhead only. The natural floor (natural.ts), what a person writes without
// looking at crudsmith's SQL, is the one ratios are taken against. Each framework's floor
// (floor-apps.ts) only routes to these and writes the answer.

/** The four endpoints over `items`, by hand, in crudsmith's SQL. */
export function floorHandlers(knex: Knex, engine: Engine): FloorHandlers {
  const map = rowMapper(engine);
  const columns = READ_FIELDS.map((c) => `items.${c}`);
  const returned = [...READ_FIELDS];

  return {
    async read(idText: string, ifNoneMatch?: string): Promise<Answer> {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const row = await knex
        .from('items')
        .select(columns)
        .where('items.is_deleted', false)
        .where('items.id', id)
        .orderBy('items.id', 'asc')
        .first();
      return row ? readAnswer(map(row), ifNoneMatch) : notFound;
    },

    /** `?category=&price__gte=&sort=-price&offset=&limit=`: a page and the total count. */
    async list(query: Record<string, unknown>): Promise<Answer> {
      const asked = listQuery(query);
      if ('status' in asked) return asked;
      const { category, min, sort, offset, limit } = asked;
      const where = (qb: Knex.QueryBuilder) => {
        qb.where('items.is_deleted', false);
        if (category !== undefined) qb.where('items.category', category);
        if (min !== undefined) qb.where('items.price', '>=', min);
        return qb;
      };
      // crudsmith's order: on PostgreSQL NULLs first ascending and last descending, unless
      // the filter keeps NULLs out and only then the table's one index, (category,
      // is_deleted, price), orders the page (the category fixed).
      const pg = engine === 'postgres';
      const served = category !== undefined && (!pg || min !== undefined);
      const nulls = pg && !(category !== undefined && min !== undefined);
      const order = (alias: string) => {
        const items: { column: string; order: 'asc' | 'desc'; nulls?: 'first' | 'last' }[] = [];
        if (sort === '-price')
          items.push({ column: `${alias}.price`, order: 'desc', nulls: nulls ? 'last' : undefined });
        if (sort === 'price')
          items.push({ column: `${alias}.price`, order: 'asc', nulls: nulls ? 'first' : undefined });
        items.push({ column: `${alias}.id`, order: sort === '-price' ? 'desc' : 'asc' });
        return items;
      };
      // Where no index orders the page, crudsmith reads it and its count in one statement.
      if (sort !== undefined && !served) {
        const window = knex.from('cs_1').select(['id', 'price']).orderBy(order('cs_1'));
        if (offset > 0) window.offset(offset);
        window.limit(limit);
        const found = (await knex
          .withMaterialized('cs_1', where(knex.from('items')).select(['items.id', 'items.price']))
          .from('items')
          .join(window.as('cs_2'), (on) => on.on('cs_2.id', '=', 'items.id'))
          .select(columns)
          .select(knex.raw('(select count(*) from ??) as ??', ['cs_1', 'cs_3']))
          .orderBy(order('cs_2'))) as Row[];
        const total =
          found.length > 0
            ? Number(found[0].cs_3)
            : offset > 0
              ? Number((await where(knex.from('items')).count({ count: '*' }))[0].count)
              : 0;
        for (const row of found) delete row.cs_3;
        return { status: 200, json: { data: found.map(map), total_count: total } };
      }
      const rows = where(knex.from('items').select(columns)).orderBy(order('items'));
      if (offset > 0) rows.offset(offset);
      rows.limit(limit);
      const [found, counted] = await Promise.all([rows, where(knex.from('items')).count({ count: '*' })]);
      return { status: 200, json: { data: (found as Row[]).map(map), total_count: Number(counted[0].count) } };
    },

    async create(body: unknown): Promise<Answer> {
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      values.created_at = new Date();
      const row = await knex('items').insert(values).returning(returned);
      return { status: 201, json: map(row[0]) };
    },

    async update(idText: string, body: unknown): Promise<Answer> {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      values.updated_at = new Date();
      const changed = await knex.from('items').where('items.is_deleted', false).where('items.id', id).update(values);
      return changed > 0 ? { status: 200, json: null } : notFound;
    },
  };
}
