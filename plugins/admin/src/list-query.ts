import { BadRequestError, ValidationError, type ColumnInfo, type Filters, type NeutralRequest } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

/** Rows per page the list offers; anything else is a 422. */
export const ROWS_PER_PAGE = [10, 25, 50, 100] as const;

/** Longest search text, in characters. */
export const SEARCH_MAX = 50;

/** A list page's query, checked. */
export interface AdminListQuery {
  page: number;
  rowsPerPage: number;
  column: string | null;
  search: string;
  sort: string | null;
  descending: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function one(req: NeutralRequest, name: string): string | undefined {
  const value = req.query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function positive(req: NeutralRequest, name: string, fallback: number): number {
  const text = one(req, name);
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw ValidationError.of(['query', name], 'Input should be a positive integer', 'int_parsing');
  return Number(text);
}

/** Reads `page`, `rows-per-page-select`, `column-to-search`, `search` and `sort` (`col` or `-col`). */
export function parseAdminListQuery(req: NeutralRequest, view: ResolvedView): AdminListQuery {
  const page = positive(req, 'page', 1);
  const rowsPerPage = positive(req, 'rows-per-page-select', 10);
  if (!(ROWS_PER_PAGE as readonly number[]).includes(rowsPerPage)) {
    throw ValidationError.of(
      ['query', 'rows-per-page-select'],
      `Rows per page must be one of ${ROWS_PER_PAGE.join(', ')}`,
      'enum',
    );
  }
  const search = one(req, 'search') ?? '';
  if (search.length > SEARCH_MAX)
    throw ValidationError.of(
      ['query', 'search'],
      `Search text must be at most ${SEARCH_MAX} characters`,
      'string_too_long',
    );
  const columnText = one(req, 'column-to-search');
  const column = columnText ? columnText : null;
  if (column !== null && !queried(view, column)) {
    throw ValidationError.of(['query', 'column-to-search'], `Unknown column to search: ${column.slice(0, 64)}`, 'enum');
  }
  const sortText = one(req, 'sort') ?? '';
  const descending = sortText.startsWith('-');
  const sort = sortText.replace(/^-/, '') || null;
  if (sort !== null && !queried(view, sort)) throw new BadRequestError(`Invalid sort column: ${sort.slice(0, 64)}`);
  return { page, rowsPerPage, column, search, sort, descending };
}

/**
 * Whether the list searches and sorts on the column: one it shows, and on every row (the
 * rows a search keeps or the order of a page would reveal a value shown on some only).
 */
export function queried(view: ResolvedView, column: string): boolean {
  return view.listColumns.some((c) => c.name === column) && !view.rowOnly?.has(column);
}

/** Escapes LIKE's wildcards and its escape character, so a search matches literally. */
function literal(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The filter a search becomes, by the column's type: text is a case-insensitive contains
 * (wildcards escaped), numbers and booleans are compared for equality, UUIDs too; a value
 * the column cannot hold is a 422. Without a column, the first text column is searched.
 */
export function searchFilters(query: AdminListQuery, view: ResolvedView): Filters {
  if (query.search === '') return {};
  const column = query.column
    ? view.info.columns.get(query.column)!
    : view.listColumns.find((c) => c.kind === 'string' && !view.formats.has(c.name) && !view.rowOnly?.has(c.name));
  if (!column) throw ValidationError.of(['query', 'column-to-search'], 'Choose a column to search', 'missing');
  return { ...typedSearch(column, query.search, view.formats.get(column.name)) };
}

function typedSearch(column: ColumnInfo, text: string, format: string | undefined): Filters {
  const loc = ['query', 'search'];
  const value = text.trim();
  switch (column.kind) {
    case 'integer':
      if (!/^[+-]?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw ValidationError.of(loc, `${column.name} is a whole number`, 'int_parsing');
      return { [column.name]: Number(value) };
    case 'number':
      if (!/^[+-]?\d{1,16}(\.\d{1,16})?$/.test(value))
        throw ValidationError.of(loc, `${column.name} is a number`, 'float_parsing');
      return { [column.name]: Number(value) };
    case 'boolean':
      if (!['true', 'false'].includes(value.toLowerCase()))
        throw ValidationError.of(loc, `${column.name} is true or false`, 'bool_parsing');
      return { [column.name]: value.toLowerCase() === 'true' };
    case 'string':
      if (format === 'uuid') {
        if (!UUID.test(value)) throw ValidationError.of(loc, `${column.name} is a UUID`, 'uuid_parsing');
        return { [column.name]: value.toLowerCase() };
      }
      return { [`${column.name}__ilike`]: `%${literal(text)}%` };
    default:
      return { [column.name]: value };
  }
}
