import { NotFoundError, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import { guarded } from '../guard';
import { parseId } from '../ids';
import type { ResolvedView } from '../model-view';
import { seeOther } from '../page';

/**
 * `POST {mount}/{model}/unlock/{id}`: lifts the sign-in lockout of one row's account
 * through the view's `unlock` (the app's, such as the account plugin's), logs it, and
 * goes back to the row's update page. A missing row is a 404 and unlocks nothing.
 */
export function unlockRoute(ctx: AdminContext, view: ResolvedView, unlock: (id: string | number) => Promise<void>): RouteDescriptor {
  const base = `${ctx.mount}/${view.name}`;
  return guarded(ctx, { method: 'POST', path: `${base}/unlock/:id`, operation: `admin_${view.name}_unlock` }, async (req, principal) => {
    const id = parseId(view, req.params.id);
    // A users view has a single-column key: the app's unlock takes that value.
    if (id === undefined || Array.isArray(id) || !(await view.repository.exists(ctx.knex, { [view.info.idColumn]: id }, { includeDeleted: true }))) throw new NotFoundError('Item not found');
    await unlock(id);
    await ctx.events.record(req, principal, [{ type: 'unlock', model: view.name, recordId: id }]);
    return seeOther(req, `${base}/update/${encodeURIComponent(String(id))}`);
  });
}
