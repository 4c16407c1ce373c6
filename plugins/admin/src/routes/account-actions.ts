import type { Knex } from 'knex';
import { NotFoundError, type RouteDescriptor } from '@crudsmith/core';
import { inTransaction, takesTransaction } from '../app-transaction';
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
  /** Runs it, through `trx` (the transaction its event is written in) when it takes one. */
  run: (id: string | number, trx?: Knex.Transaction) => Promise<void>;
}

/**
 * `POST {mount}/{model}/{unlock|sign-out}/{id}`: runs one of the view's account actions
 * (lift the sign-in lockout, end every session and token) on a row's account, logs it in
 * the same transaction, and goes back to the row's update page. A missing row (deleted ones count) is a 404 and
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
      // The event first, then the action, in one transaction: both are kept or neither, and a
      // part of the action outside the database (sessions in Redis) runs only once the event is written.
      await inTransaction(ctx, takesTransaction(action.run, 1), async (trx, events) => {
        await events.record(req, principal, [{ type: action.event, model: view.name, recordId: id }]);
        await action.run(id, trx);
      });
      return seeOther(req, `${base}/update/${encodeURIComponent(String(id))}`);
    },
  );
}
