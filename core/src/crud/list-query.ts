import { BadRequestError } from '../errors/http-error';
import { parseSortParam } from '../data/sort';
import { integer, single, within, type Query } from './query-values';

/** Limits a read-many endpoint enforces. */
export interface ListLimits {
  /** Largest `limit` / `itemsPerPage` (default 1000). */
  maxLimit: number;
  /** Rows answered when no pagination parameter is given (default 100). */
  defaultLimit: number;
}

interface Sort {
  sortColumns: string[];
  sortOrders: ('asc' | 'desc')[];
}

/** How a read-many request asked to be paginated. */
export type ListRequest =
  | ({ mode: 'offset'; offset: number; limit: number } & Sort)
  | ({ mode: 'page'; page: number; itemsPerPage: number; offset: number; limit: number } & Sort)
  | ({ mode: 'cursor'; cursor: string | null; limit: number } & Sort);

/** The query keys pagination owns; no filter may use them. */
export const PAGINATION_KEYS = ['offset', 'limit', 'page', 'itemsPerPage', 'items_per_page', 'sort', 'cursor'] as const;

/**
 * Reads pagination, sort and cursor parameters by DESIGN §3 and §8: page/itemsPerPage
 * (10 per page when only page is given), offset/limit (limit alone means offset 0), or a
 * keyset `cursor` (empty for the first page). Mixing the forms is a 400; out-of-range
 * numbers are 422.
 */
export function parseListQuery(query: Query, limits: ListLimits): ListRequest {
  const sort = parseSortParam(single(query, 'sort') ?? '');
  const offset = within(integer(query, 'offset'), 'offset', { min: 0 });
  const limit = within(integer(query, 'limit'), 'limit', { min: 1, max: limits.maxLimit });
  const page = within(integer(query, 'page'), 'page', { min: 1 });
  const perPageKey = query.itemsPerPage !== undefined ? 'itemsPerPage' : 'items_per_page';
  const itemsPerPage = within(integer(query, perPageKey), perPageKey, { min: 1, max: limits.maxLimit });
  const paged = page !== undefined || itemsPerPage !== undefined;

  if ('cursor' in query && query.cursor !== undefined) {
    if (paged || offset !== undefined) throw new BadRequestError('Conflicting parameters: cursor cannot be combined with page, itemsPerPage or offset');
    // The defaults (100 a cursor page, 10 a page) never exceed the router's maxLimit.
    return { mode: 'cursor', cursor: single(query, 'cursor') || null, limit: limit ?? Math.min(100, limits.maxLimit), ...sort };
  }
  if (paged) {
    if (offset !== undefined || limit !== undefined) {
      throw new BadRequestError('Conflicting parameters: use page and itemsPerPage, or offset and limit, not both');
    }
    const p = page ?? 1;
    const perPage = itemsPerPage ?? Math.min(10, limits.maxLimit);
    return { mode: 'page', page: p, itemsPerPage: perPage, offset: (p - 1) * perPage, limit: perPage, ...sort };
  }
  return { mode: 'offset', offset: offset ?? 0, limit: limit ?? limits.defaultLimit, ...sort };
}
