import { exportAnswer, exportEncoder, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import { guarded } from '../guard';
import { parseAdminListQuery, searchFilters } from '../list-query';
import type { ResolvedView } from '../model-view';
import { requireMay, scopeOf, seenBy } from '../view-access';

/** Rows the admin's export reads at a time. */
const EXPORT_PAGE_SIZE = 500;

/**
 * `GET {mount}/{model}/export` (`view` action, the view's `export` option): the list's
 * rows for its current search and sort, as CSV, streamed in keyset pages by the code the
 * API's export runs. Only the list's columns leave, never a hidden one; the export is an
 * event in the log.
 */
export function csvExportRoute(ctx: AdminContext, view: ResolvedView): RouteDescriptor {
  return guarded(
    ctx,
    { method: 'GET', path: `${ctx.mount}/${view.name}/export`, operation: `admin_${view.name}_export` },
    async (req, principal) => {
      requireMay(view, 'list', principal);
      // The list rule's rows and columns, as the list page shows them.
      const seen = seenBy(view, principal);
      const columns = seen.listColumns.map((c) => c.name);
      const query = parseAdminListQuery(req, seen);
      const filters = searchFilters(query, seen);
      const answer = await exportAnswer(
        {
          repo: view.repository,
          db: ctx.knex,
          filters,
          sortColumns: query.sort ? [query.sort] : [],
          sortOrders: query.sort ? [query.descending ? 'desc' : 'asc'] : [],
          read: { schemaToSelect: columns },
          pageSize: EXPORT_PAGE_SIZE,
          columns,
          ...scopeOf(principal),
        },
        exportEncoder('csv'),
        view.name,
      );
      await ctx.events.record(req, principal, [
        { type: 'export', model: view.name, details: { search: query.search || undefined, sort: query.sort } },
      ]);
      return answer;
    },
  );
}
