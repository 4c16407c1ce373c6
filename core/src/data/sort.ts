import { BadRequestError } from '../errors/http-error';
import type { Dialect } from './dialect';
import type { ModelInfo } from '../model/model-info';

/** One sort key. */
export interface SortSpec {
  column: string;
  order: 'asc' | 'desc';
  /** The read's filters keep NULLs out of the column, so PostgreSQL is told no NULL order (list-order.ts). */
  nullsKeptOut?: boolean;
}

/** Reads the `sort` query value: `-price,name` → price desc, name asc; blanks ignored. */
export function parseSortParam(text: string): { sortColumns: string[]; sortOrders: ('asc' | 'desc')[] } {
  const sortColumns: string[] = [];
  const sortOrders: ('asc' | 'desc')[] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const desc = part.startsWith('-');
    sortColumns.push(desc ? part.slice(1).trim() : part);
    sortOrders.push(desc ? 'desc' : 'asc');
  }
  return { sortColumns, sortOrders };
}

/**
 * Validates sort columns and orders against the model and appends the primary key, so
 * every list has one deterministic order and offset pages never overlap. The key follows
 * the last sort column's direction: SQLite's and MariaDB's indexes end with the key, so
 * `(category, is_deleted, price)` read backwards is already `price desc, id desc`, and a
 * page stops after its rows with no sort at all.
 */
export function sortSpecs(info: ModelInfo, columns?: string | string[], orders?: string | string[]): SortSpec[] {
  if (
    (columns === undefined || (Array.isArray(columns) && columns.length === 0)) &&
    (orders === undefined || (Array.isArray(orders) && orders.length === 0))
  ) {
    return primaryKeyOrder(info);
  }
  const list = columns === undefined ? [] : Array.isArray(columns) ? columns : [columns];
  const orderList = orders === undefined ? [] : Array.isArray(orders) ? orders : list.map(() => orders);
  if (orderList.length > 0 && orderList.length !== list.length) {
    throw new BadRequestError('sortOrders must be a single order or one order per sort column');
  }
  const specs: SortSpec[] = [];
  list.forEach((column, i) => {
    if (!info.columns.has(column))
      throw new BadRequestError(`Invalid sort column '${column}': not found in model ${info.model.name}`);
    const order = (orderList[i] ?? 'asc').toLowerCase();
    if (order !== 'asc' && order !== 'desc')
      throw new BadRequestError(`Invalid sort order '${orderList[i]}': use asc or desc`);
    if (!specs.some((s) => s.column === column)) specs.push({ column, order });
  });
  const last = specs.at(-1)?.order ?? 'asc';
  for (const key of info.idColumns) if (!specs.some((s) => s.column === key)) specs.push({ column: key, order: last });
  return specs;
}

const byKey = new WeakMap<ModelInfo, readonly SortSpec[]>();

// The order of most reads (by id, a default page), the same every time: built once per
// model, frozen since every read shares it.
function primaryKeyOrder(info: ModelInfo): SortSpec[] {
  let specs = byKey.get(info);
  if (!specs) {
    specs = Object.freeze(info.idColumns.map((column) => Object.freeze({ column, order: 'asc' as const })));
    byKey.set(info, specs);
  }
  return specs as SortSpec[];
}

/** One ORDER BY item as knex's `orderBy([...])` takes it. */
export interface OrderItem {
  column: string;
  order: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

/**
 * The ORDER BY list as knex `orderBy` items, with the NULL order of `orderSql`: knex
 * writes `nulls first/last` on PostgreSQL, so it is asked only there (and only for a
 * nullable column); SQLite and MariaDB already sort NULLs that way. Cheaper for knex to
 * compile than the raw list.
 */
export function orderItems(specs: SortSpec[], alias: string, ctx: { info: ModelInfo; dialect: Dialect }): OrderItem[] {
  return specs.map((spec) => {
    const nullable = !spec.nullsKeptOut && (ctx.info.columns.get(spec.column)?.nullable ?? true);
    const item: OrderItem = { column: `${alias}.${spec.column}`, order: spec.order };
    if (ctx.dialect === 'pg' && nullable) item.nulls = spec.order === 'asc' ? 'first' : 'last';
    return item;
  });
}

/**
 * The ORDER BY list as raw SQL (for window functions, where knex takes no order items). NULLs come first in ascending order and last in
 * descending order on every engine (SQLite's and MariaDB's own rule; PostgreSQL is told).
 */
export function orderSql(
  specs: SortSpec[],
  alias: string,
  ctx: { info: ModelInfo; dialect: Dialect },
): { sql: string; bindings: string[] } {
  const parts: string[] = [];
  const bindings: string[] = [];
  for (const spec of specs) {
    const nullable = !spec.nullsKeptOut && (ctx.info.columns.get(spec.column)?.nullable ?? true);
    const nulls = ctx.dialect === 'pg' && nullable ? (spec.order === 'asc' ? ' nulls first' : ' nulls last') : '';
    parts.push(`?? ${spec.order}${nulls}`);
    bindings.push(`${alias}.${spec.column}`);
  }
  return { sql: parts.join(', '), bindings };
}
