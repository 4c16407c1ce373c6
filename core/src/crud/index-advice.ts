import type { Knex } from 'knex';
import { readIndexes, type CatalogueIndex } from '../data/catalogue-indexes';
import { dialectOf, type Dialect } from '../data/dialect';
import { indexOrders, indexPosition } from '../data/served-order';
import type { ColumnInfo } from '../model/model-info';
import type { CrudContext } from './crud-context';

// The filters an index is advised for: equality (`eq`, `in`, `is`), whose columns may come
// before the flag and the sort column in one index. Ranges alone, text patterns, negations
// and custom operators are left to the deployer, as are columns an index rarely helps
// (booleans, JSON) or that MariaDB cannot index whole (strings past 255 characters).
const EQUALITY = new Set(['eq', 'in', 'is']);
const UNINDEXED_KINDS = new Set(['boolean', 'json']);
const LONGEST_INDEXED_STRING = 255;

/** What a generated list asks of the table's indexes: its declared filters and sorts. */
interface ListShape {
  model: string;
  table: string;
  flag?: string;
  /** Own columns the declared filters compare for equality, each once, not counting the key and the sorted ones. */
  filters: string[];
  /** The columns `sortable` declares, with whether PostgreSQL orders them with a NULLS clause. */
  sorts: { column: string; nullable: boolean }[];
}

/**
 * The startup check of a generated list's indexes: a warning naming the indexes to add
 * when a declared filter's column leads no index (nor follows only the soft-delete flag),
 * or no index holds a declared `sortable` column after nothing but the equality-filtered
 * columns and the flag (on PostgreSQL a nullable one also wants `NULLS FIRST` ascending,
 * as lists order it); nothing when every one is served. One catalogue query for the table.
 */
export function indexAdvice(ctx: CrudContext, sortable: readonly string[] = []): (knex: Knex) => Promise<string[]> {
  const shape = listShape(ctx, sortable);
  return async (knex) => {
    const db = ctx.fixedSession ?? knex;
    if (shape.filters.length === 0 && shape.sorts.length === 0) return [];
    const advice = missingIndexes(shape, await readIndexes(db, shape.table), dialectOf(db));
    if (advice.missing.length === 0) return [];
    return [
      `${shape.model} lists ${advice.missing.join(' and ')} with no index to serve them: add ${advice.statements.join('; ')}`,
    ];
  };
}

function listShape(ctx: CrudContext, sortable: readonly string[]): ListShape {
  const { info } = ctx;
  const flag = ctx.repo.readContext.deletedFlag;
  const keyed = (column: string) => info.idColumns.includes(column) || column === flag;
  const sorts = [...new Set(sortable)]
    .filter((column) => !keyed(column))
    .map((column) => ({ column, nullable: info.columns.get(column)?.nullable ?? true }));
  const filters: ListShape['filters'] = [];
  for (const filter of ctx.filters) {
    const column = filter.column.name;
    if (filter.owner !== info || !EQUALITY.has(filter.op) || keyed(column) || !indexable(info.columns.get(column)))
      continue;
    if (sorts.some((sort) => sort.column === column)) continue; // judged as a sort
    if (!filters.includes(column)) filters.push(column);
  }
  return { model: info.model.name, table: info.table, flag, filters, sorts };
}

function indexable(column: ColumnInfo | undefined): boolean {
  if (!column || UNINDEXED_KINDS.has(column.kind)) return false;
  return column.kind !== 'string' || (column.maxLength ?? 0) <= LONGEST_INDEXED_STRING;
}

/** What no index serves, and the CREATE INDEX statements that would serve it. */
function missingIndexes(
  shape: ListShape,
  indexes: readonly CatalogueIndex[],
  dialect: Dialect,
): { missing: string[]; statements: string[] } {
  const flag = shape.flag ? [shape.flag] : [];
  const statements = new Set<string>();
  const unfiltered: string[] = [];
  const unsorted: string[] = [];
  const sortColumn = (sort: ListShape['sorts'][number]) =>
    dialect === 'pg' && sort.nullable ? `${sort.column} NULLS FIRST` : sort.column;
  for (const column of shape.filters) {
    if (indexes.some((index) => leads(index, column, flag))) continue;
    unfiltered.push(column);
    const first = shape.sorts[0];
    statements.add(createIndex(shape.table, [column, ...flag, ...(first ? [sortColumn(first)] : [])], flag));
  }
  for (const sort of shape.sorts) {
    const before = new Set([...flag, ...shape.filters].map((column) => column.toLowerCase()));
    if (indexes.some((index) => indexOrders(index, sort, before, dialect))) continue;
    unsorted.push(sort.column);
    const first = shape.filters[0];
    statements.add(createIndex(shape.table, [...(first ? [first] : []), ...flag, sortColumn(sort)], flag));
  }
  const missing = [
    ...(unfiltered.length ? [`filter on ${unfiltered.join(', ')}`] : []),
    ...(unsorted.length ? [`sort on ${unsorted.join(', ')}`] : []),
  ];
  return { missing, statements: [...statements] };
}

// A filtered column is found through an index it leads, or that only the flag leads
// (every list compares the flag for equality).
function leads(index: CatalogueIndex, column: string, flag: readonly string[]): boolean {
  const at = indexPosition(index, column);
  return at === 0 || (at === 1 && flag.includes(index.columns[0].name));
}

// Named as the docs name theirs: the table, then the indexed columns but the flag.
function createIndex(table: string, columns: readonly string[], flag: readonly string[]): string {
  const named = columns.map((column) => column.split(' ')[0]).filter((column) => !flag.includes(column));
  return `CREATE INDEX ${[table.split('.').pop(), ...named].join('_')} ON ${table} (${columns.join(', ')})`;
}
