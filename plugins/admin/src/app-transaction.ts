import type { Knex } from 'knex';
import type { AdminContext } from './context';
import type { EventLog } from './event-log';

/**
 * Whether an app's callback declares the transaction parameter at `index`, so its writes
 * can go through the admin's transaction. One that does not write through its own
 * connection: inside the transaction it would wait for SQLite's only connection, which the
 * transaction holds, so it runs outside any.
 */
export function takesTransaction(callback: (...args: never[]) => unknown, index: number): boolean {
  return callback.length > index;
}

/**
 * Runs an admin action's write and its event in one transaction, so both commit or neither
 * does: `body` gets the transaction and the event log writing through it. When `together`
 * is false (an app's callback that takes no transaction) it gets no transaction and the
 * plain log, and each write commits on its own, as before callbacks took one.
 */
export function inTransaction<T>(
  ctx: AdminContext,
  together: boolean,
  body: (trx: Knex.Transaction | undefined, events: EventLog) => Promise<T>,
): Promise<T> {
  if (!together) return body(undefined, ctx.events);
  return ctx.knex.transaction((trx) => body(trx, ctx.events.on(trx)));
}
