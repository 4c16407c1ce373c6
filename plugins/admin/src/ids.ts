import type { Knex } from 'knex';
import { ValidationError } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A row's primary key as the admin carries it: a value, or one per key column. */
export type RowId = string | number | (string | number)[];

/**
 * A primary-key value of the view's type, from path text or a JSON value: integers,
 * numbers, UUIDs and other strings. Answers undefined when it cannot be one (a path
 * answers 404 then; a bulk delete 422). A composite key is its values in key order, each
 * percent-encoded and joined by `,` in text (as `rowIdText` writes it), or a JSON array.
 */
export function parseId(view: ResolvedView, raw: unknown): RowId | undefined {
  const columns = view.info.idColumns;
  if (columns.length === 1) return parseKeyValue(view, columns[0], raw);
  let parts: unknown[];
  if (Array.isArray(raw)) parts = raw;
  else if (typeof raw === 'string' && raw.length <= 1000) {
    try {
      parts = raw.split(',').map((part) => decodeURIComponent(part));
    } catch {
      return undefined;
    }
  } else return undefined;
  if (parts.length !== columns.length) return undefined;
  const values = columns.map((column, i) => parseKeyValue(view, column, parts[i]));
  return values.every((value) => value !== undefined) ? (values as (string | number)[]) : undefined;
}

function parseKeyValue(view: ResolvedView, name: string, raw: unknown): string | number | undefined {
  const column = view.info.columns.get(name)!;
  if (column.kind === 'integer') {
    const value =
      typeof raw === 'number' ? raw : typeof raw === 'string' && /^[+-]?\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    return Number.isSafeInteger(value) &&
      (column.minimum === undefined || value >= column.minimum) &&
      (column.maximum === undefined || value <= column.maximum)
      ? value
      : undefined;
  }
  if (column.kind === 'number') {
    const value =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^[+-]?\d{1,16}(\.\d{1,16})?$/.test(raw)
          ? Number(raw)
          : NaN;
    return Number.isFinite(value) ? value : undefined;
  }
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > (column.maxLength ?? 255)) return undefined;
  if (view.formats.get(name) === 'uuid') return UUID.test(raw) ? raw.toLowerCase() : undefined;
  return raw;
}

/** The text naming a row in the admin's links and forms (`parseId` reads it back). */
export function rowIdText(view: ResolvedView, row: Record<string, unknown>): string {
  const columns = view.info.idColumns;
  if (columns.length === 1) return String(row[columns[0]] ?? '');
  return columns.map((column) => encodeURIComponent(String(row[column] ?? ''))).join(',');
}

/** The row's id as the event log records it: the key's value, or its text for a composite key. */
export function recordIdOf(
  view: ResolvedView,
  row: Record<string, unknown> | null | undefined,
): string | number | undefined {
  if (!row) return undefined;
  return view.info.idColumns.length === 1 ? (row[view.info.idColumn] as string | number) : rowIdText(view, row);
}

/** The equality filters that pick the row of an id. */
export function idFilters(view: ResolvedView, id: RowId): Record<string, unknown> {
  const columns = view.info.idColumns;
  if (columns.length === 1) return { [columns[0]]: id };
  return Object.fromEntries(columns.map((column, i) => [column, (id as (string | number)[])[i]]));
}

/** Most ids one bulk delete takes. */
export const BULK_MAX = 1000;

/** The ids of a bulk delete, each of the key's type, once each; a wrong one is a 422 naming its position. */
export function parseIds(view: ResolvedView, ids: unknown[]): RowId[] {
  if (ids.length > BULK_MAX) throw ValidationError.of(['body', 'ids'], `At most ${BULK_MAX} ids at once`, 'too_long');
  const unique = new Map<string, RowId>();
  ids.forEach((raw, index) => {
    const id = parseId(view, raw);
    if (id === undefined)
      throw ValidationError.of(['body', 'ids', index], `Not a valid ${view.info.idColumns.join(',')}`, 'id_parsing');
    unique.set(JSON.stringify(id), id);
  });
  return [...unique.values()];
}

/** Restricts a query to the rows of these ids (a tuple `IN` for a composite key). */
export function whereIds<T extends Knex.QueryBuilder>(qb: T, view: ResolvedView, ids: readonly RowId[]): T {
  const columns = view.info.idColumns;
  return (
    columns.length === 1
      ? qb.whereIn(columns[0], ids as (string | number)[])
      : qb.whereIn(columns as string[], ids as (string | number)[][])
  ) as T;
}
