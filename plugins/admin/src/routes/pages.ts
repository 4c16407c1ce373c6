import type { NeutralRequest, RouteDescriptor } from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { layoutLocals, translate, type AdminContext } from '../context';
import { guarded } from '../guard';
import { ROWS_PER_PAGE, parseAdminListQuery, queried, searchFilters } from '../list-query';
import { columnFilterConditions, filterControls, filterParams, parseColumnFilters } from '../list-filters';
import { activityChart } from '../activity-chart';
import { columnHeads, rowCells, showValue } from '../format-value';
import { referenceLabels } from '../reference-labels';
import { rowIdText } from '../ids';
import { inSentence } from '../i18n/translate';
import { hasTrash } from './trash';
import type { ResolvedView } from '../model-view';
import { html, isHtmx } from '../page';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import { may, mayCreate, requireMay, restricted, scopeOf, seenBy } from '../view-access';

const AT = { name: 'at', kind: 'datetime', nullable: false } as const;

/** How many of the latest events the dashboard shows. */
const LATEST_EVENTS = 10;

/** The dashboard (`GET {mount}/` and its partial `dashboard-content`). */
export function dashboardRoutes(ctx: AdminContext, counts: RowCounts): RouteDescriptor[] {
  const content = async (req: NeutralRequest, principal: AdminPrincipal) => {
    const t = translate(ctx, req);
    const views = [...ctx.views.values()].filter((v) => v.allowed.has('view') && may(v, 'list', principal));
    // An admin user holding roles sees the count of the rows its list rule reaches (exact, never cached).
    const scope = scopeOf(principal);
    const countOf = (v: ResolvedView) =>
      scope.principal
        ? v.repository.count(ctx.knex, {}, scope).then((value) => ({ value, estimated: false }))
        : counts.of(v);
    // With the log on, each model's writes a day (one grouped query) and the latest events (one small indexed query);
    // the log counts every row, so an admin user holding roles sees neither.
    const logged = ctx.events.enabled && !restricted(principal);
    const activity = logged ? await ctx.events.activity(views.map((v) => v.name)) : null;
    const rows = await Promise.all(
      views.map(async (v) => ({
        name: v.name,
        label: v.labels.plural,
        count: await countOf(v),
        chart: activity ? activityChart(v.name, v.labels.plural, activity.get(v.name)!, t) : null,
      })),
    );
    const latest = logged ? (await ctx.events.list({ page: 1 })).events.slice(0, LATEST_EVENTS) : [];
    return {
      charts: activity !== null,
      rows,
      latest: latest.map((e) => ({
        at: showValue(e.at, AT, false, t('language.tag')),
        type: e.type,
        username: e.username ?? '',
        model: e.model ?? '',
        recordId: e.recordId ?? '',
      })),
    };
  };
  return [
    guarded(ctx, { method: 'GET', path: `${ctx.mount}/`, operation: 'admin_dashboard' }, async (req, principal) =>
      html(
        200,
        render('dashboard', {
          ...layoutLocals(ctx, req, principal, translate(ctx, req)('dashboard.title')),
          ...(await content(req, principal)),
        }),
      ),
    ),
    guarded(
      ctx,
      { method: 'GET', path: `${ctx.mount}/dashboard-content`, operation: 'admin_dashboard_content' },
      async (req, principal) =>
        html(
          200,
          render('dashboard-content', {
            ...layoutLocals(ctx, req, principal, translate(ctx, req)('dashboard.title')),
            ...(await content(req, principal)),
          }),
        ),
    ),
  ];
}

/** The list's locals: one page of rows and the total, in two queries. */
export async function listLocals(
  ctx: AdminContext,
  declared: ResolvedView,
  req: NeutralRequest,
  principal: AdminPrincipal,
): Promise<Record<string, unknown>> {
  requireMay(declared, 'list', principal);
  // Columns the list rule withholds are neither shown, searched, filtered nor sorted on.
  const view = seenBy(declared, principal);
  const query = parseAdminListQuery(req, view);
  const filters = parseColumnFilters(req, view);
  const { data, total_count: total = 0 } = await view.repository.getMulti(ctx.knex, {
    filters: { ...searchFilters(query, view), ...columnFilterConditions(filters) },
    offset: (query.page - 1) * query.rowsPerPage,
    limit: query.rowsPerPage,
    sortColumns: query.sort ?? view.info.idColumn,
    sortOrders: query.descending ? 'desc' : 'asc',
    returnTotalCount: true,
    ...scopeOf(principal),
  });
  const labels = await referenceLabels(ctx, view, data, principal);
  const names = view.listColumns.map((c) => c.name);
  const locale = translate(ctx, req)('language.tag');
  const pages = Math.max(1, Math.ceil(total / query.rowsPerPage));
  const base = `${ctx.mount}/${view.name}`;
  const state = (page: number, sort = query.sort ? `${query.descending ? '-' : ''}${query.sort}` : '') =>
    new URLSearchParams({
      page: String(page),
      'rows-per-page-select': String(query.rowsPerPage),
      ...(query.column ? { 'column-to-search': query.column } : {}),
      ...(query.search ? { search: query.search } : {}),
      ...filterParams(filters),
      ...(sort ? { sort } : {}),
    }).toString();
  // A column's header sorts by it (descending when it already sorts ascending), keeping the search.
  const sortLinks = Object.fromEntries(
    view.listColumns
      .filter((c) => queried(view, c.name))
      .map((c) => [c.name, `${base}/?${state(1, query.sort === c.name && !query.descending ? `-${c.name}` : c.name)}`]),
  );
  const creates = view.allowed.has('create') && (await mayCreate(ctx.knex, declared, principal));
  return {
    ...layoutLocals(ctx, req, principal, view.labels.plural),
    view: {
      name: view.name,
      base,
      singular: view.labels.singular,
      inSentence: inSentence(view.labels.singular, translate(ctx, req)),
      canCreate: creates,
      // Create is the role's but a field a new row needs is not: the list says why it offers none.
      createBlocked: !creates && view.allowed.has('create') && may(view, 'create', principal),
      canUpdate: view.allowed.has('update') && may(view, 'update', principal),
      canDelete: view.allowed.has('delete') && may(view, 'delete', principal),
      hasTrash: hasTrash(view) && may(view, 'restore', principal),
      canExport: Boolean(view.view.export),
      canImport: Boolean(view.view.import) && creates,
    },
    columns: columnHeads(view),
    idColumn: view.info.idColumn,
    rows: data.map((row) => ({
      id: rowIdText(view, row),
      cells: rowCells(view, row, names, { references: labels, locale }),
    })),
    total,
    query,
    pages,
    rowsPerPageChoices: ROWS_PER_PAGE,
    prev: query.page > 1 ? `${base}/?${state(query.page - 1)}` : null,
    next: query.page < pages ? `${base}/?${state(query.page + 1)}` : null,
    prevPartial: query.page > 1 ? `${base}/get_model_list?${state(query.page - 1)}` : null,
    nextPartial: query.page < pages ? `${base}/get_model_list?${state(query.page + 1)}` : null,
    listState: state(query.page),
    sortLinks,
    filters: filterControls(view, filters),
    filtering: Object.keys(filterParams(filters)).length > 0,
  };
}

/** The list page and its partial (`view` action). */
export function listRoutes(ctx: AdminContext, view: ResolvedView): RouteDescriptor[] {
  const base = `${ctx.mount}/${view.name}`;
  return [
    guarded(ctx, { method: 'GET', path: `${base}/`, operation: `admin_${view.name}_list` }, async (req, principal) => {
      const locals = await listLocals(ctx, view, req, principal);
      await ctx.events.record(req, principal, [{ type: 'view', model: view.name }]);
      return html(200, render('list', locals));
    }),
    guarded(
      ctx,
      { method: 'GET', path: `${base}/get_model_list`, operation: `admin_${view.name}_list_content` },
      async (req, principal) => {
        const locals = await listLocals(ctx, view, req, principal);
        // htmx keeps the full page's address (never the partial's) in the history, so a reload shows the whole page.
        const headers = isHtmx(req) ? { 'HX-Push-Url': `${base}/?${String(locals.listState)}` } : undefined;
        return html(200, render('list-content', locals), { headers });
      },
    ),
  ];
}
