import {
  BadRequestError,
  NotFoundError,
  ValidationError,
  mapDatabaseError,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AdminContext } from '../context';
import { guarded } from '../guard';
import { scrub } from '../event-log';
import { idFilters, parseIds, recordIdOf } from '../ids';
import { autoValues } from '../model-declaration';
import { signOutAll, type ResolvedView } from '../model-view';
import { html } from '../page';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import { requireMay, scopeOf } from '../view-access';
import { listLocals } from './pages';

/**
 * `DELETE {mount}/{model}/bulk-delete` with JSON `{ids: [...]}` (`delete` action): every id
 * of the key's type (422 otherwise), none is a 400; all rows go in one transaction or none
 * (a missing one is a 404, a database error a 400); soft-deleted when the model has the
 * flag, with its delete auto fields, as the API's DELETE does. Answers the refreshed list partial, on the page the
 * query names.
 */
export function bulkDeleteRoute(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor {
  return guarded(
    ctx,
    { method: 'DELETE', path: `${ctx.mount}/${view.name}/bulk-delete`, operation: `admin_${view.name}_bulk_delete` },
    async (req, principal) => {
      requireMay(view, 'delete', principal);
      // Under the model's policy, only rows the admin user's delete rule reaches go; any other chosen row undoes it all.
      const scope = scopeOf(principal);
      const body = req.body as { ids?: unknown } | undefined;
      if (
        !body ||
        typeof body !== 'object' ||
        body.ids === undefined ||
        (Array.isArray(body.ids) && body.ids.length === 0)
      ) {
        throw new BadRequestError('No ids given');
      }
      if (!Array.isArray(body.ids)) throw ValidationError.of(['body', 'ids'], 'ids must be a list', 'list_type');
      const ids = parseIds(view, body.ids);
      // A soft delete writes the model's delete auto fields (`deleted_by`), as the API's DELETE does.
      const values = await autoValues(req, view.declaration.autoFields.delete);
      let removedRows: Record<string, unknown>[] = [];
      try {
        await ctx.knex.transaction(async (trx) => {
          // The rows as they were, for the event log, read in the transaction that deletes them.
          let removed = 0;
          if (view.info.idColumns.length > 1) {
            // A composite key: one conditional delete per row (filters take no tuple list).
            for (const id of ids) {
              if (ctx.events.enabled)
                removedRows.push(...(await view.repository.select(trx, idFilters(view, id), scope)));
              removed += await view.repository
                .delete(trx, idFilters(view, id), { values, ...scope })
                .catch((error: unknown) => (error instanceof NotFoundError ? 0 : Promise.reject(error)));
            }
          } else {
            if (ctx.events.enabled)
              removedRows = await view.repository.select(trx, { [`${view.info.idColumn}__in`]: ids }, scope);
            removed = await view.repository.delete(
              trx,
              { [`${view.info.idColumn}__in`]: ids },
              { allowMultiple: true, values, ...scope },
            );
          }
          if (removed !== ids.length)
            throw new NotFoundError(`${ids.length - removed} of the rows were not found; nothing was deleted`);
          // The events in the same transaction: the delete and its record are kept or neither.
          await ctx.events.on(trx).record(
            req,
            principal,
            removedRows.map((row) => ({
              type: 'delete' as const,
              model: view.name,
              recordId: recordIdOf(view, row),
              details: { record: scrub(row, view.hidden) },
            })),
          );
        });
      } catch (error) {
        const mapped = mapDatabaseError(error);
        // A refusal of the database (a row others refer to...) is the client's 400; an
        // unreachable database stays a 503, and a fault of ours a 500.
        if (error instanceof NotFoundError || !mapped || mapped.status === 503) throw error;
        throw new BadRequestError('The rows could not be deleted (the database refused); nothing was deleted', {
          cause: error,
        });
      } finally {
        counts.forget(view.name);
      }
      // A deleted account is signed out everywhere, so a later restore revives none of its sign-ins.
      await signOutAll(view, ids);
      await view.view.afterWrite?.('delete');
      return html(200, render('list-content', await listLocals(ctx, view, req, principal)));
    },
  );
}
