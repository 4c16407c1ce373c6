import type { Knex } from 'knex';
import type { ModelInfo } from '../model/model-info';

/**
 * A row's primary key: its id column's value, or, for a composite key, the values of its
 * key columns in the model's `idColumn` order.
 */
export type RowKey = unknown;

/** Whether the model's primary key has several columns. */
export function isComposite(info: ModelInfo): boolean {
  return info.idColumns.length > 1;
}

/** The key of a row (or of the values of a write). */
export function keyOf(info: ModelInfo, row: Record<string, unknown>): RowKey {
  return isComposite(info) ? info.idColumns.map((column) => row[column]) : row[info.idColumn];
}

/** The equality filters that pick the row of a key. */
export function keyFilters(info: ModelInfo, key: RowKey): Record<string, unknown> {
  if (!isComposite(info)) return { [info.idColumn]: key };
  const values = key as unknown[];
  return Object.fromEntries(info.idColumns.map((column, i) => [column, values[i]]));
}

/** Restricts a query to the rows of these keys (a tuple `IN` for a composite key). */
export function whereKeys<T extends Knex.QueryBuilder>(qb: T, info: ModelInfo, keys: readonly RowKey[]): T {
  if (!isComposite(info)) return qb.whereIn(info.idColumn, keys as readonly string[]) as T;
  return qb.whereIn(info.idColumns as string[], keys as readonly (readonly string[])[] as string[][]) as T;
}

/** Whether the filters pin every key column to one value (so at most one row matches). */
export function pinsKey(info: ModelInfo, filters: Record<string, unknown>): boolean {
  return info.idColumns.every((column) => {
    const value = filters[column];
    return typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint';
  });
}
