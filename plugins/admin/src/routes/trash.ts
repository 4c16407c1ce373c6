import type { Knex } from 'knex';
import {
  BadRequestError,
  NotFoundError,
  ValidationError,
  type NeutralRequest,
  type Principal,
  type RouteDescriptor,
} from '@crudsmith/core';
import { layoutLocals, translate, type AdminContext } from '../context';
import { scrub, type EventEntry } from '../event-log';
import type { AdminPrincipal } from '../admin-auth';
import { columnHeads, rowCells } from '../format-value';
import { guarded } from '../guard';
import { idFilters, parseIds, recordIdOf, rowIdText, whereIds, type RowId } from '../ids';
import { signOutAll, type ResolvedView } from '../model-view';
import { html, seeOther } from '../page';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import { requireMay, scopeOf, seenBy } from '../view-access';

const FLAG = 'is_deleted';
const DELETED_AT = 'deleted_at';
const PER_PAGE = 25;

/** Whether a view's model soft-deletes (it has the flag column the repository uses). */
export function hasTrash(view: ResolvedView): boolean {
  return view.allowed.has('delete') && view.info.columns.get(FLAG)?.kind === 'boolean';
}

// The ids of a trash form: `ids` as one value or several, each of the key's type.
function idsOf(view: ResolvedView, req: NeutralRequest): RowId[] {
  const raw = (req.body as Record<string, unknown> | undefined)?.ids;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) throw new BadRequestError('No rows chosen');
  return parseIds(view, list);
}

/**
 * The trash of a soft-delete model: the deleted rows, newest deletion first, and two
 * actions on the chosen ones, all or nothing: restore (the repository's, as the API's
 * restore endpoint) and permanent delete. Plain forms, so it works without JavaScript.
 */
export function trashRoutes(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor[] {
  const base = `${ctx.mount}/${view.name}/trash`;
  const { table, idColumn } = view.info;
  const hasDeletedAt = view.info.columns.has(DELETED_AT);

  // Runs `change` on the chosen deleted rows in one transaction; a chosen row that is not in the trash undoes it all (404).
  const onChosen = async (
    req: NeutralRequest,
    change: (chosen: Knex.QueryBuilder, trx: Knex, ids: RowId[]) => Promise<number>,
    logged: (rows: Record<string, unknown>[]) => EventEntry[],
    principal: AdminPrincipal,
  ) => {
    const ids = idsOf(view, req);
    return ctx.knex.transaction(async (trx) => {
      const rows = await whereIds(trx(table), view, ids).where(FLAG, true).select('*');
      if (rows.length !== ids.length)
        throw new NotFoundError(`${ids.length - rows.length} of the rows are not in the trash; nothing was changed`);
      const changed = await change(whereIds(trx(table), view, ids).where(FLAG, true), trx, ids);
      if (changed !== ids.length) throw new NotFoundError('The rows changed meanwhile; nothing was changed');
      // The event in the same transaction: the change and its record are kept or neither.
      await ctx.events.on(trx).record(req, principal, logged(rows));
      return rows as Record<string, unknown>[];
    });
  };

  return [
    guarded(ctx, { method: 'GET', path: `${base}`, operation: `admin_${view.name}_trash` }, async (req, principal) => {
      // Under the model's policy, an admin user holding roles sees the deleted rows its
      // list rule reaches, through the repository, and only if it may restore.
      requireMay(view, 'restore', principal);
      const scope = scopeOf(principal);
      const seen = seenBy(view, principal);
      const pageText = req.query.page;
      const page =
        typeof pageText === 'string' && /^\d{1,6}$/.test(pageText) && Number(pageText) >= 1
          ? Number(pageText)
          : pageText === undefined
            ? 1
            : NaN;
      if (!Number.isFinite(page)) throw ValidationError.of(['query', 'page'], 'A positive integer', 'int_parsing');
      const order = hasDeletedAt
        ? [
            { column: DELETED_AT, order: 'desc' as const },
            { column: idColumn, order: 'desc' as const },
          ]
        : [{ column: idColumn, order: 'desc' as const }];
      const { rows, total } = scope.principal
        ? await scopedTrash(view, ctx.knex, { order, page, principal: scope.principal })
        : {
            rows: await ctx
              .knex(table)
              .where(FLAG, true)
              .orderBy(order)
              .limit(PER_PAGE)
              .offset((page - 1) * PER_PAGE)
              .select('*'),
            total: Number((await ctx.knex(table).where(FLAG, true).count({ n: '*' }).first())?.n ?? 0),
          };
      const names = seen.listColumns.map((c) => c.name);
      return html(
        200,
        render('trash', {
          ...layoutLocals(ctx, req, principal, translate(ctx, req)('trash.title', { models: view.labels.plural })),
          view: { name: view.name, base: `${ctx.mount}/${view.name}` },
          trash: base,
          columns: columnHeads(seen),
          rows: rows.map((row: Record<string, unknown>) => ({
            id: rowIdText(view, row),
            cells: rowCells(seen, row, names, { locale: translate(ctx, req)('language.tag') }),
          })),
          total,
          page,
          pages: Math.max(1, Math.ceil(total / PER_PAGE)),
        }),
      );
    }),
    guarded(
      ctx,
      { method: 'POST', path: `${base}/restore`, operation: `admin_${view.name}_trash_restore` },
      async (req, principal) => {
        requireMay(view, 'restore', principal);
        // The repository's restore, one conditional UPDATE per row, in one transaction: a
        // chosen row that is not in the trash (404) undoes them all.
        const ids = idsOf(view, req);
        const rows = await ctx.knex.transaction(async (trx) => {
          const restored: Record<string, unknown>[] = [];
          for (const id of ids) {
            try {
              restored.push(await view.repository.restore(trx, idFilters(view, id), scopeOf(principal)));
            } catch (error) {
              if (error instanceof NotFoundError)
                throw new NotFoundError(
                  `Row ${Array.isArray(id) ? id.join(',') : id} is not in the trash; nothing was changed`,
                );
              throw error;
            }
          }
          // The event in the same transaction: the restore and its record are kept or neither.
          await ctx.events.on(trx).record(
            req,
            principal,
            restored.map((row) => ({ type: 'restore' as const, model: view.name, recordId: recordIdOf(view, row) })),
          );
          return restored;
        });
        counts.forget(view.name);
        // A restored account starts signed out: whatever was signed in before the delete stays dead.
        await signOutAll(
          view,
          rows.map((row) => recordIdOf(view, row)),
        );
        await view.view.afterWrite?.('update');
        return seeOther(req, base);
      },
    ),
    guarded(
      ctx,
      { method: 'POST', path: `${base}/purge`, operation: `admin_${view.name}_trash_purge` },
      async (req, principal) => {
        requireMay(view, 'hardDelete', principal);
        const scope = scopeOf(principal);
        // Under the model's policy, each row goes through the repository's hard delete, so
        // its rule decides (a row it does not reach undoes them all: 404, or 403 if readable).
        const purged = (rows: Record<string, unknown>[]) =>
          rows.map((row) => ({
            type: 'purge' as const,
            model: view.name,
            recordId: recordIdOf(view, row),
            details: { record: scrub(row, view.hidden) },
          }));
        const remove = async (chosen: Knex.QueryBuilder, trx: Knex, ids: RowId[]) => {
          if (!scope.principal) return Number(await chosen.delete());
          let removed = 0;
          for (const id of ids)
            removed += await view.repository.dbDelete(trx, { ...idFilters(view, id), [FLAG]: true }, scope);
          return removed;
        };
        const rows = await onChosen(req, remove, purged, principal);
        // Nothing issued to a purged account may outlive it (a reused id would inherit it).
        await signOutAll(
          view,
          rows.map((row) => recordIdOf(view, row)),
        );
        await view.view.afterWrite?.('delete');
        return seeOther(req, base);
      },
    ),
  ];
}

/** A page of the trash under the model's list rule, for an admin user holding roles. */
async function scopedTrash(
  view: ResolvedView,
  knex: Knex,
  at: { order: { column: string; order: 'desc' }[]; page: number; principal: Principal },
): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const { data, total_count: total = 0 } = await view.repository.getMulti(knex, {
    filters: { [FLAG]: true },
    includeDeleted: true,
    sortColumns: at.order.map((o) => o.column),
    sortOrders: at.order.map((o) => o.order),
    offset: (at.page - 1) * PER_PAGE,
    limit: PER_PAGE,
    returnTotalCount: true,
    principal: at.principal,
  });
  return { rows: data, total };
}
