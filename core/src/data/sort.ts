import { BadRequestError } from '../errors/http-error';
import type { Dialect } from './dialect';
import type { ModelInfo } from './model-info';

/** One sort key. */
export interface SortSpec {
  column: string;
  order: 'asc' | 'desc';
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
 * every list has one deterministic order and offset pages never overlap.
 */
export function sortSpecs(info: ModelInfo, columns?: string | string[], orders?: string | string[]): SortSpec[] {
  const list = columns === undefined ? [] : Array.isArray(columns) ? columns : [columns];
  const orderList = orders === undefined ? [] : Array.isArray(orders) ? orders : list.map(() => orders);
  if (orderList.length > 0 && orderList.length !== list.length) {
    throw new BadRequestError('sortOrders must be a single order or one order per sort column');
  }
  const specs: SortSpec[] = [];
  list.forEach((column, i) => {
    if (!info.columns.has(column)) throw new BadRequestError(`Invalid sort column '${column}': not found in model ${info.model.name}`);
    const order = (orderList[i] ?? 'asc').toLowerCase();
    if (order !== 'asc' && order !== 'desc') throw new BadRequestError(`Invalid sort order '${orderList[i]}': use asc or desc`);
    if (!specs.some((s) => s.column === column)) specs.push({ column, order });
  });
  if (!specs.some((s) => s.column === info.idColumn)) specs.push({ column: info.idColumn, order: 'asc' });
  return specs;
}

/**
 * The ORDER BY list as raw SQL. NULLs come first in ascending order and last in
 * descending order on every engine (SQLite's and MariaDB's own rule; PostgreSQL is told).
 */
export function orderSql(specs: SortSpec[], alias: string, ctx: { info: ModelInfo; dialect: Dialect }): { sql: string; bindings: string[] } {
  const parts: string[] = [];
  const bindings: string[] = [];
  for (const spec of specs) {
    const nullable = ctx.info.columns.get(spec.column)?.nullable ?? true;
    const nulls = ctx.dialect === 'pg' && nullable ? (spec.order === 'asc' ? ' nulls first' : ' nulls last') : '';
    parts.push(`?? ${spec.order}${nulls}`);
    bindings.push(`${alias}.${spec.column}`);
  }
  return { sql: parts.join(', '), bindings };
}
