import { ExportFormatError } from '../errors/export-errors';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { schemaFields } from '../schema/fields';
import { sessionOf, type CrudContext } from './crud-context';
import { exportEncoder } from './export-format';
import { exportAnswer } from './export-stream';
import { readOptions } from './operations';
import { requestFilters } from './filter-config';
import { checkSortable, PAGINATION_KEYS } from './list-query';
import { single, type Query } from './query-values';
import { parseSortParam } from '../data/sort';
import { hiddenFields } from '../access/enforce';
import { callerOf, refuseHiddenKeys } from './access-guard';

/**
 * GET {path}/export?format=csv|ndjson|json: every row the list would answer for the same
 * filters and sort (the same columns too: a hidden one never leaves), streamed in keyset
 * pages of `pageSize` rows. A pagination key is a 400: an export has no window.
 */
export function exportHandler(ctx: CrudContext, pageSize: number): (req: NeutralRequest) => Promise<NeutralResult> {
  const columns = ctx.selectSchema ? schemaFields(ctx.selectSchema) : [...ctx.info.columns.keys()];
  return async (req) => {
    const query = req.query as Query;
    const encoder = exportEncoder(query.format);
    const windowed = PAGINATION_KEYS.find((key) => key !== 'sort' && query[key] !== undefined);
    if (windowed) throw new ExportFormatError(`An export answers every matching row: '${windowed}' does not apply`);
    const { sortColumns, sortOrders } = parseSortParam(single(query, 'sort') ?? '');
    // An export shows what the list shows: the caller's list rule scopes its rows and fields.
    const principal = await callerOf(ctx, req, 'list');
    if (principal !== undefined) refuseHiddenKeys(ctx, principal, { query, sortColumns });
    checkSortable(sortColumns, ctx.sortable);
    const filters = await requestFilters(ctx.filters, req, ctx.info);
    const read = readOptions(ctx);
    const db = await sessionOf(ctx, req);
    const hidden = hiddenFields(ctx.info, ctx.repo.policy?.list, principal ?? null);
    const shown = principal === undefined ? columns : columns.filter((column) => !hidden.has(column));
    const source = { repo: ctx.repo, db, filters, sortColumns, sortOrders, read, pageSize, columns: shown, principal };
    return exportAnswer(source, encoder, ctx.info.table);
  };
}
