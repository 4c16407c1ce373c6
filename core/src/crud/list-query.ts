import { BadRequestError } from '../errors/http-error';
import { parseSortParam } from '../data/sort';
import { integer, single, within, type Query } from './query-values';

/** Limits a read-many endpoint enforces. */
export interface ListLimits {
  /** Largest `limit` / `itemsPerPage` (default 1000). */
  maxLimit: number;
  /** Rows answered when no pagination parameter is given (default 100). */
  defaultLimit: number;
  /**
   * Pages only: every request is a page, page 1 of `defaultLimit` rows when it names
   * neither `page` nor `itemsPerPage`. `offset`, `limit` and `cursor` are then not
   * pagination keys and are left to the route, like any key it does not know.
   */
  pagesOnly?: boolean;
}

interface Sort {
  sortColumns: string[];
  sortOrders: ('asc' | 'desc')[];
}

/** A request for one page: `page` from 1, `itemsPerPage` rows, and the window they make. */
export type PageRequest = { mode: 'page'; page: number; itemsPerPage: number; offset: number; limit: number } & Sort;

/** How a read-many request asked to be paginated. */
export type ListRequest =
  | ({ mode: 'offset'; offset: number; limit: number } & Sort)
  | PageRequest
  | ({ mode: 'cursor'; cursor: string | null; limit: number } & Sort);

/** The query keys pagination owns; no filter may use them. */
export const PAGINATION_KEYS = ['offset', 'limit', 'page', 'itemsPerPage', 'items_per_page', 'sort', 'cursor'] as const;

/**
 * Reads pagination, sort and cursor parameters: page/itemsPerPage (10 per page when only
 * page is given), offset/limit (limit alone means offset 0), or a keyset `cursor` (empty
 * for the first page); with `pagesOnly`, always a page. Mixing the forms is a 400, since
 * guessing which one the caller meant would answer rows they did not ask for; numbers
 * that are not plain integers, or out of range, are 422.
 */
export function parseListQuery(query: Query, limits: ListLimits & { pagesOnly: true }): PageRequest;
export function parseListQuery(query: Query, limits: ListLimits): ListRequest;
export function parseListQuery(query: Query, limits: ListLimits): ListRequest {
  const sort = parseSortParam(single(query, 'sort') ?? '');
  const page = within(integer(query, 'page'), 'page', { min: 1 });
  const perPageKey = query.itemsPerPage !== undefined ? 'itemsPerPage' : 'items_per_page';
  const itemsPerPage = within(integer(query, perPageKey), perPageKey, { min: 1, max: limits.maxLimit });
  if (limits.pagesOnly) return pageOf(page ?? 1, itemsPerPage ?? limits.defaultLimit, sort);
  const offset = within(integer(query, 'offset'), 'offset', { min: 0 });
  const limit = within(integer(query, 'limit'), 'limit', { min: 1, max: limits.maxLimit });
  const paged = page !== undefined || itemsPerPage !== undefined;

  if ('cursor' in query && query.cursor !== undefined) {
    if (paged || offset !== undefined)
      throw new BadRequestError('Conflicting parameters: cursor cannot be combined with page, itemsPerPage or offset');
    // The defaults (100 a cursor page, 10 a page) never exceed the router's maxLimit.
    return {
      mode: 'cursor',
      cursor: single(query, 'cursor') || null,
      limit: limit ?? Math.min(100, limits.maxLimit),
      ...sort,
    };
  }
  if (paged) {
    if (offset !== undefined || limit !== undefined) {
      throw new BadRequestError('Conflicting parameters: use page and itemsPerPage, or offset and limit, not both');
    }
    return pageOf(page ?? 1, itemsPerPage ?? Math.min(10, limits.maxLimit), sort);
  }
  return { mode: 'offset', offset: offset ?? 0, limit: limit ?? limits.defaultLimit, ...sort };
}

/**
 * Refuses (400) a sort column the endpoint does not offer. A column the answer hides and
 * one the model lacks get the same answer, so neither the order nor the error tells them apart.
 */
export function checkSortable(columns: string[], sortable: ReadonlySet<string>): void {
  for (const column of columns) {
    if (!sortable.has(column))
      throw new BadRequestError(`Invalid sort column '${column.slice(0, 64)}': sort by ${[...sortable].join(', ')}`);
  }
}

function pageOf(page: number, itemsPerPage: number, sort: Sort): PageRequest {
  return { mode: 'page', page, itemsPerPage, offset: (page - 1) * itemsPerPage, limit: itemsPerPage, ...sort };
}
