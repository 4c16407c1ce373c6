import type { Knex } from 'knex';
import type { Engine } from '../lib/db';
import { rowMapper } from '../lib/items';
import { READ_FIELDS } from './crudsmith-apps';

// The hand-written floor: the four endpoints as someone would write them for this one
// table with knex, checking what they must and nothing generic. Each framework's floor
// (floor-apps.ts) only routes to these and writes the answer. They send the SQL crudsmith
// sends (the suite checks it) and answer the same JSON.

/** What a floor handler answers: a status and a JSON value. */
export interface Answer {
  status: number;
  json: unknown;
}

type Row = Record<string, any>;
type Issue = { loc: string[]; msg: string; type: string };

const notFound: Answer = { status: 404, json: { detail: 'Item not found' } };
const invalid = (issues: Issue[]): Answer => ({ status: 422, json: { detail: issues } });
const issue = (loc: string[], msg: string): Issue => ({ loc, msg, type: 'value_error' });

/** Fields a client may write, with their type and longest length. */
const WRITABLE: Record<string, { type: 'string' | 'number' | 'datetime'; max?: number }> = {
  name: { type: 'string', max: 100 },
  description: { type: 'string' },
  category: { type: 'string', max: 50 },
  price: { type: 'number' },
  last_sold: { type: 'datetime' },
};

/** The body's values, or the problems with it (unknown fields, wrong types, too long). */
function itemValues(body: unknown): Row | Issue[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [issue(['body'], 'Input should be a valid object')];
  const values: Row = {};
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(body)) {
    const field = WRITABLE[key];
    if (!field) issues.push(issue(['body', key], 'Extra inputs are not permitted'));
    else if (value === null) values[key] = null;
    else if (field.type === 'number' ? !Number.isFinite(value) : typeof value !== 'string') issues.push(issue(['body', key], `Input should be a valid ${field.type}`));
    else if (field.max !== undefined && (value as string).length > field.max) issues.push(issue(['body', key], `At most ${field.max} characters`));
    else if (field.type === 'datetime') {
      const date = new Date(value as string);
      if (Number.isNaN(date.getTime())) issues.push(issue(['body', key], 'Input should be a valid datetime'));
      else values[key] = date;
    } else values[key] = value;
  }
  return issues.length > 0 ? issues : values;
}

/** A path id: digits within the column's range, else undefined. */
function idOf(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2147483647 ? id : undefined;
}

/** A non-negative integer query value (or its default), else undefined. */
function count(text: unknown, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return typeof text === 'string' && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** The four endpoints over `items`, by hand. */
export function floorHandlers(knex: Knex, engine: Engine) {
  const map = rowMapper(engine);
  const columns = READ_FIELDS.map((c) => `items.${c}`);
  // NULLs last when descending, as crudsmith orders on every engine (SQLite does it by itself).
  const nullsLast = engine === 'postgres' ? 'last' : undefined;
  const byId = (db: Knex, id: number) => db.from('items').select(columns).where('items.id', id).orderBy('items.id', 'asc').first();

  return {
    async read(idText: string): Promise<Answer> {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const row = await knex.from('items').select(columns).where('items.is_deleted', false).where('items.id', id).orderBy('items.id', 'asc').first();
      return row ? { status: 200, json: map(row) } : notFound;
    },

    /** `?category=&price__gte=&sort=-price&offset=&limit=`: a page and the total count. */
    async list(query: Record<string, unknown>): Promise<Answer> {
      const { category, price__gte: minPrice, sort } = query;
      const offset = count(query.offset, 0);
      const limit = count(query.limit, 100);
      if (offset === undefined || limit === undefined || limit < 1 || limit > 1000) return invalid([issue(['query'], 'Bad offset or limit')]);
      if (sort !== undefined && sort !== '-price' && sort !== 'price') return { status: 400, json: { detail: `Invalid sort column '${sort}'` } };
      const min = minPrice === undefined ? undefined : Number(minPrice);
      if (min !== undefined && !Number.isFinite(min)) return invalid([issue(['query', 'price__gte'], 'Input should be a valid number')]);
      if (category !== undefined && typeof category !== 'string') return invalid([issue(['query', 'category'], 'Expected a single value')]);
      const where = (qb: Knex.QueryBuilder) => {
        qb.where('items.is_deleted', false);
        if (category !== undefined) qb.where('items.category', category);
        if (min !== undefined) qb.where('items.price', '>=', min);
        return qb;
      };
      const rows = where(knex.from('items').select(columns));
      if (sort === '-price') rows.orderBy('items.price', 'desc', nullsLast);
      if (sort === 'price') rows.orderBy('items.price', 'asc', engine === 'postgres' ? 'first' : undefined);
      rows.orderBy('items.id', 'asc');
      if (offset > 0) rows.offset(offset);
      rows.limit(limit);
      const [found, counted] = await Promise.all([rows, where(knex.from('items')).count({ count: '*' })]);
      return { status: 200, json: { data: (found as Row[]).map(map), total_count: Number(counted[0].count) } };
    },

    async create(body: unknown): Promise<Answer> {
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      values.created_at = new Date();
      const row = await knex.transaction(async (trx) => {
        const [inserted] = await (engine === 'postgres' ? trx('items').insert(values, ['id']) : trx('items').insert(values));
        return byId(trx, typeof inserted === 'object' ? inserted.id : inserted);
      });
      return { status: 201, json: map(row) };
    },

    async update(idText: string, body: unknown): Promise<Answer> {
      const id = idOf(idText);
      if (id === undefined) return notFound;
      const values = itemValues(body);
      if (Array.isArray(values)) return invalid(values);
      values.updated_at = new Date();
      const found = await knex.transaction(async (trx) => {
        const ids = (await trx.from('items').select('items.id').where('items.is_deleted', false).where('items.id', id).limit(2)).map((r: Row) => r.id);
        if (ids.length === 0) return false;
        await trx('items').update(values).whereIn('id', ids);
        return true;
      });
      return found ? { status: 200, json: null } : notFound;
    },
  };
}

/** The floor's handlers, as each framework's app calls them. */
export type FloorHandlers = ReturnType<typeof floorHandlers>;
