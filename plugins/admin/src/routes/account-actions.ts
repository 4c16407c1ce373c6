import { NotFoundError, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import type { EventType } from '../event-log';
import { guarded } from '../guard';
import { parseId } from '../ids';
import type { ResolvedView } from '../model-view';
import { seeOther } from '../page';

/** An action on a row's account that the app gives the view (the account plugin's functions). */
export interface AccountAction {
  /** The path segment: `{mount}/{model}/{segment}/{id}`. */
  segment: 'unlock' | 'sign-out';
  /** What the event log calls it. */
  event: Extract<EventType, 'unlock' | 'sign_out_everywhere'>;
  run: (id: string | number) => Promise<void>;
}

/**
 * `POST {mount}/{model}/{unlock|sign-out}/{id}`: runs one of the view's account actions
 * (lift the sign-in lockout, end every session and token) on a row's account, logs it,
 * and goes back to the row's update page. A missing row (deleted ones count) is a 404 and
 * runs nothing; the guard checks the session and its CSRF token first. Only admin users
 * with full access (holding no roles) act on accounts.
 */
export function accountActionRoute(ctx: AdminContext, view: ResolvedView, action: AccountAction): RouteDescriptor {
  const base = `${ctx.mount}/${view.name}`;
  return guarded(
    ctx,
    {
      method: 'POST',
      path: `${base}/${action.segment}/:id`,
      operation: `admin_${view.name}_${action.event}`,
      fullAccess: true,
    },
    async (req, principal) => {
      const id = parseId(view, req.params.id);
      // An account's key is one column: the app's action takes that value.
      if (
        id === undefined ||
        Array.isArray(id) ||
        !(await view.repository.exists(ctx.knex, { [view.info.idColumn]: id }, { includeDeleted: true }))
      )
        throw new NotFoundError('Item not found');
      await action.run(id);
      await ctx.events.record(req, principal, [{ type: action.event, model: view.name, recordId: id }]);
      return seeOther(req, `${base}/update/${encodeURIComponent(String(id))}`);
    },
  );
}
