import { ValidationError, type ColumnInfo, type Filters, type NeutralRequest } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

/** Longest value of one filter field, in characters (as a search). */
export const FILTER_MAX = 50;

/** How a column is filtered, by its type: the list's filter row shows one control each. */
export type FilterKind = 'text' | 'number' | 'date' | 'boolean' | 'choice' | 'key';

/** One filterable column of the list and what the address asks of it (empty: nothing). */
export interface ColumnFilter {
  column: ColumnInfo;
  kind: FilterKind;
  /** `f.{column}`: the text to contain, the value to equal, `true` or `false`. */
  value: string;
  /** `f.{column}.from` and `f.{column}.to`: a range's inclusive bounds (numbers, dates). */
  from: string;
  to: string;
}

const NUMBER = /^[+-]?\d{1,16}(\.\d{1,16})?$/;
const INTEGER = /^[+-]?\d{1,16}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How the view's list column is filtered, or null when it is not (JSON and array columns). */
export function filterKind(view: ResolvedView, column: ColumnInfo): FilterKind | null {
  if (view.view.references?.[column.name] || view.formats.get(column.name) === 'uuid') return 'key';
  if (view.enums.has(column.name)) return 'choice';
  switch (column.kind) {
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    case 'datetime':
    case 'date':
      return 'date';
    case 'string':
      return 'text';
    default:
      return null;
  }
}

function one(req: NeutralRequest, name: string): string {
  const value = req.query[name];
  return (Array.isArray(value) ? value[value.length - 1] : value) ?? '';
}

/**
 * Reads the list's column filters from the address: `f.{column}` (text, boolean, choice,
 * key) and `f.{column}.from` / `.to` (number and date ranges). A key naming a column the
 * list does not show (a hidden one included), a JSON column, a wrong part, a value longer
 * than 50 characters or one the column cannot hold is a 422 at `["query", key]`.
 */
export function parseColumnFilters(req: NeutralRequest, view: ResolvedView): ColumnFilter[] {
  const filters = view.listColumns.flatMap((column) => {
    // A column shown on some rows only is not filtered on: the rows kept would reveal its values.
    const kind = view.rowOnly?.has(column.name) ? null : filterKind(view, column);
    return kind ? [{ column, kind, value: '', from: '', to: '' } as ColumnFilter] : [];
  });
  const byName = new Map(filters.map((f) => [f.column.name, f]));
  for (const key of Object.keys(req.query)) {
    if (!key.startsWith('f.')) continue;
    const [name, part = 'value', ...rest] = key.slice(2).split('.');
    const filter = byName.get(name);
    const ranged = filter?.kind === 'number' || filter?.kind === 'date';
    const fits = ranged ? part === 'from' || part === 'to' : part === 'value' && key === `f.${name}`;
    if (!filter || rest.length > 0 || !fits)
      throw ValidationError.of(['query', key.slice(0, 80)], 'Unknown column filter', 'enum');
    const text = one(req, key).trim();
    if (text === '') continue;
    if (text.length > FILTER_MAX)
      throw ValidationError.of(['query', key], `A filter must be at most ${FILTER_MAX} characters`, 'string_too_long');
    checkValue(view, filter, text, ['query', key]);
    // A UUID is stored lower-case, as the key's search finds it.
    filter[part as 'value' | 'from' | 'to'] = view.formats.get(name) === 'uuid' ? text.toLowerCase() : text;
  }
  return filters;
}

function checkValue(view: ResolvedView, filter: ColumnFilter, text: string, loc: string[]): void {
  const { column, kind } = filter;
  const fail = (message: string, type: string) => {
    throw ValidationError.of(loc, message, type);
  };
  if (kind === 'boolean' && text !== 'true' && text !== 'false') fail('Input should be true or false', 'bool_parsing');
  if (kind === 'date' && (!DATE.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))))
    fail('Input should be a date (YYYY-MM-DD)', 'date_parsing');
  if (kind === 'choice' && !view.enums.get(column.name)!.some((v) => String(v) === text))
    fail('Input should be one of the column’s values', 'enum');
  const numeric = kind === 'number' || kind === 'key';
  if (numeric && column.kind === 'integer' && (!INTEGER.test(text) || !Number.isSafeInteger(Number(text))))
    fail('Input should be a whole number', 'int_parsing');
  if (numeric && column.kind === 'number' && !NUMBER.test(text)) fail('Input should be a number', 'float_parsing');
  if (kind === 'key' && view.formats.get(column.name) === 'uuid' && !UUID.test(text))
    fail('Input should be a UUID', 'uuid_parsing');
}

/** The day after a `YYYY-MM-DD` date, in the same form. */
function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * The conditions of the column filters, under keys a search never takes (a search and a
 * filter on the same column both hold): text contains (case-insensitive, taken literally),
 * equality through `in`, booleans through `is`, inclusive ranges; a date-time's `to` day
 * is whole (before the next day's midnight, UTC).
 */
export function columnFilterConditions(filters: readonly ColumnFilter[]): Filters {
  const where: Filters = {};
  for (const { column, kind, value, from, to } of filters) {
    const name = column.name;
    if (value !== '') {
      if (kind === 'text') where[`${name}__or`] = { ilike: `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
      else if (kind === 'boolean') where[`${name}__is`] = value;
      else where[`${name}__in`] = [value];
    }
    const datetime = kind === 'date' && column.kind === 'datetime';
    if (from !== '') where[`${name}__gte`] = datetime ? `${from}T00:00:00.000Z` : from;
    if (to !== '') {
      if (datetime) where[`${name}__lt`] = `${nextDay(to)}T00:00:00.000Z`;
      else where[`${name}__lte`] = to;
    }
  }
  return where;
}

/** The filters as address parameters, the set ones only (paging and sort links keep them). */
export function filterParams(filters: readonly ColumnFilter[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const { column, value, from, to } of filters) {
    if (value !== '') params[`f.${column.name}`] = value;
    if (from !== '') params[`f.${column.name}.from`] = from;
    if (to !== '') params[`f.${column.name}.to`] = to;
  }
  return params;
}

/** What the list's filter row shows of each filter: its label, control and current values. */
export function filterControls(view: ResolvedView, filters: readonly ColumnFilter[]): Record<string, unknown>[] {
  return filters.map(({ column, kind, value, from, to }) => ({
    name: `f.${column.name}`,
    label: view.labels.columns.get(column.name) ?? column.name,
    kind,
    input: kind === 'date' ? 'date' : kind === 'number' ? 'number' : 'text',
    step: column.kind === 'integer' ? '1' : 'any',
    options: kind === 'choice' ? view.enums.get(column.name)!.map(String) : undefined,
    value,
    from,
    to,
  }));
}
