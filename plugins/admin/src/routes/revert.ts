import { BadRequestError, NotFoundError, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import { diff } from '../event-log';
import { guarded } from '../guard';
import { idFilters, parseId, recordIdOf } from '../ids';
import { autoValues } from '../model-declaration';
import { seeOther } from '../page';
import type { RowCounts } from '../row-counts';
import { readable } from '../event-access';
import { maskedOn, requireMay, roleRefusal, scopeOf, unwritableOf } from '../view-access';

const STAMP = 'updated_at';

/**
 * `POST {mount}/management/events/{id}/revert`: writes back the values an update event
 * replaced (only the columns it changed, never a password field or hash, and not the
 * update time, which the write stamps anew). The revert is an admin update like any
 * other: the model's auto fields are not written back but set anew (`updated_by` names
 * who reverted), and it is itself an update event, naming the event it reverts. An admin
 * user with roles reverts only under the model's update rule: the row rule joins the write,
 * and a value of a field it may not write refuses the revert (403, nothing written).
 */
export function revertRoute(ctx: AdminContext, counts: RowCounts): RouteDescriptor {
  return guarded(
    ctx,
    {
      method: 'POST',
      path: `${ctx.mount}/management/events/:id/revert`,
      operation: 'admin_management_events_revert',
    },
    async (req, principal) => {
      const eventId = /^\d{1,12}$/.test(req.params.id) ? Number(req.params.id) : NaN;
      const event = Number.isSafeInteger(eventId) ? await ctx.events.get(eventId) : null;
      if (!event) throw new NotFoundError('Event not found');
      const view = event.model ? ctx.views.get(event.model) : undefined;
      const changes = (event.details as { changes?: Record<string, { before: unknown }> } | null)?.changes;
      if (event.type !== 'update' || !view || !view.allowed.has('update') || !changes)
        throw new BadRequestError('Only an update of a model the admin may update can be reverted');
      // An admin user with roles reverts under the update rule: an event of a row it may not
      // read is not found, a field it may not write refuses the whole revert.
      if (!(await readable(ctx, view, principal, event.recordId))) throw new NotFoundError('Event not found');
      requireMay(view, 'update', principal);
      const id = parseId(view, event.recordId ?? '');
      if (id === undefined) throw new NotFoundError('Item not found');
      const auto = view.declaration.autoFields;
      const serverSet = (field: string) => field === STAMP || Object.values(auto).some((fields) => field in fields);
      const values: Record<string, unknown> = {};
      for (const [field, change] of Object.entries(changes)) {
        const column = view.info.columns.get(field);
        if (!column || view.hidden.has(field) || serverSet(field) || view.info.idColumns.includes(field)) continue;
        values[field] =
          (column.kind === 'datetime' || column.kind === 'date') && typeof change.before === 'string'
            ? new Date(change.before)
            : change.before;
      }
      if (Object.keys(values).length === 0)
        throw new BadRequestError('This update changed nothing that can be written back');
      const unwritable = unwritableOf(view, principal);
      if (Object.keys(values).some((field) => unwritable.has(field))) throw roleRefusal();
      Object.assign(values, await autoValues(req, auto.update));
      const scope = scopeOf(principal);
      // The write and its event in one transaction: both are kept or neither.
      await ctx.knex.transaction(async (trx) => {
        const before = await view.repository.get(trx, idFilters(view, id), scope);
        if (!before) throw new NotFoundError('Item not found');
        // As on its update page, the admin user writes no field the read rule hides on this row.
        const masked = maskedOn(view, principal, before);
        if (Object.keys(values).some((field) => masked.has(field))) throw roleRefusal();
        await view.repository.update(trx, values, { filters: idFilters(view, id), ...scope });
        const after = (await view.repository.get(trx, idFilters(view, id))) ?? {};
        // A masked field was not read above: its stored value is no change.
        const unlogged = new Set([...view.hidden, ...masked]);
        await ctx.events.on(trx).record(req, principal, [
          {
            type: 'update',
            model: view.name,
            recordId: recordIdOf(view, before),
            details: { changes: diff(before, after, unlogged), revertOf: event.id },
          },
        ]);
      });
      counts.forget(view.name);
      await view.view.afterWrite?.('update');
      return seeOther(req, `${ctx.mount}/management/events`);
    },
  );
}
