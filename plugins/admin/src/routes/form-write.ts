import type { Knex } from 'knex';
import type { NeutralRequest } from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import type { AdminContext } from '../context';
import type { Translate } from '../i18n/translate';
import { recordIdOf } from '../ids';
import type { LinkChange } from '../many-to-many';
import type { ResolvedView } from '../model-view';
import type { RowCounts } from '../row-counts';
import { writeLinkSets, type LinkSet } from './form-links';

/** What the event log keeps of a write: the row's key, and the record (create) or the changes (update). */
export interface LoggedWrite {
  recordId: string | number;
  details: unknown;
}

/** What a form's write answers: the row (created, or as it was before an update) and what the event log keeps. */
export interface Written {
  row: Record<string, unknown>;
  logged?: LoggedWrite;
  /**
   * What follows the write once it is committed: work on other connections or outside the
   * database (a sign-out everywhere, dropping a replaced file). Inside the transaction it
   * would wait for SQLite's one connection, which the transaction holds, and would act on
   * a write that could still roll back.
   */
  committed?: () => Promise<void>;
}

/** Who submitted which form: the event's request, admin user and type, and the link sets sent with it. */
export interface Submission {
  req: NeutralRequest;
  principal: AdminPrincipal;
  mode: 'create' | 'update';
  t: Translate;
  sets: readonly LinkSet[];
}

/**
 * An update's logged changes with its link changes added, by relation name: an update that
 * changed only links is still logged.
 */
function withLinkChanges(
  view: ResolvedView,
  done: Written,
  links: Record<string, LinkChange>,
): LoggedWrite | undefined {
  if (Object.keys(links).length === 0) return done.logged;
  const logged = done.logged ?? { recordId: recordIdOf(view, done.row)!, details: { changes: {} } };
  const { changes } = logged.details as { changes: Record<string, unknown> };
  return { ...logged, details: { changes: { ...changes, ...links } } };
}

/**
 * Runs a form's write, its link sets and its event in one transaction: the event commits
 * with the write or neither does. Everything in it goes through the transaction, the event
 * too, since on SQLite the transaction holds the only connection and anything asking the
 * pool for another would wait forever.
 */
export async function writeAtomically(
  ctx: AdminContext,
  view: ResolvedView,
  submission: Submission,
  write: (trx: Knex.Transaction) => Promise<Written>,
): Promise<Written> {
  const { req, principal, mode, t, sets } = submission;
  return ctx.knex.transaction(async (trx) => {
    const done = await write(trx);
    const links = await writeLinkSets(trx, sets, done.row, t);
    const logged = mode === 'update' ? withLinkChanges(view, done, links) : done.logged;
    if (logged) await ctx.events.on(trx).record(req, principal, [{ type: mode, model: view.name, ...logged }]);
    return done;
  });
}

/** What follows a committed form write: its own after-commit work, the row counts, then the view's `afterWrite`. */
export async function afterCommit(
  view: ResolvedView,
  counts: RowCounts,
  mode: Submission['mode'],
  done: Written,
): Promise<void> {
  await done.committed?.();
  counts.forget(view.name);
  await view.view.afterWrite?.(mode);
}
