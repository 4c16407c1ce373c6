import {
  ForbiddenError,
  permits,
  rowOnlyFields,
  withheldFields,
  type AccessOperation,
  type Principal,
} from '@crudsmith/core';
import type { AdminPrincipal } from './admin-auth';
import { fullAccess } from './admin-roles';
import { messageError } from './i18n/message-error';
import type { ResolvedView } from './model-view';
import { requiredOnCreate } from './required-fields';
import type { Knex } from 'knex';

// The model's access policy as the admin's pages apply it to the signed-in admin user:
// which actions are offered (and refused with a 403 when forced), which columns and form
// fields it sees, and the principal the repository limits rows with.

/** The principal the admin user acts as (full access until the guard has read its roles). */
export function actingOf(principal: AdminPrincipal): Principal {
  return principal.acting ?? fullAccess(principal.user);
}

/** Whether the admin user holds roles, so the policies (and not full access) decide. */
export function restricted(principal: AdminPrincipal): boolean {
  return !actingOf(principal).isSuperuser;
}

/** Whether the view's model policy lets the admin user perform the operation. */
export function may(view: ResolvedView, op: AccessOperation, principal: AdminPrincipal): boolean {
  const acting = actingOf(principal);
  return acting.isSuperuser || permits(view.repository.policy, op, acting);
}

/** The 403 of an admin user whose roles do not allow what it asked (its page says so in the reader's language). */
export function roleRefusal(): ForbiddenError {
  return messageError((english) => new ForbiddenError(english), 'error.roleForbids');
}

/** A 403 unless the admin user may perform the operation: a forged request writes nothing. */
export function requireMay(view: ResolvedView, op: AccessOperation, principal: AdminPrincipal): void {
  if (!may(view, op, principal)) throw roleRefusal();
}

/** The repository options that apply the policy: the principal when restricted, nothing for full access. */
export function scopeOf(principal: AdminPrincipal): { principal?: Principal } {
  const acting = actingOf(principal);
  return acting.isSuperuser ? {} : { principal: acting };
}

/**
 * The view as the admin user sees it: list columns without the fields the list rule
 * withholds on every row (those it shows on some rows only stay, in `rowOnly`, never
 * searched, filtered nor sorted on), form fields without those the create or update rule
 * may not set.
 */
export function seenBy(view: ResolvedView, principal: AdminPrincipal): ResolvedView {
  const acting = actingOf(principal);
  if (acting.isSuperuser) return view;
  const { policy } = view.repository;
  const listed = withheldFields(policy, view.info, 'list', acting);
  const rowOnly = rowOnlyFields(policy, view.info, 'list', acting);
  const create = withheldFields(policy, view.info, 'create', acting);
  const update = withheldFields(policy, view.info, 'update', acting);
  return {
    ...view,
    listColumns: view.listColumns.filter((c) => !listed.has(c.name) || rowOnly.has(c.name)),
    rowOnly,
    createFields: view.createFields.filter((f) => !create.has(f)),
    updateFields: view.updateFields.filter((f) => !update.has(f)),
  };
}

/**
 * The fields a read by id withholds from the admin user on some row or every row: what the
 * event log never shows of the model's rows (a logged value is of a row as it was).
 */
export function unreadable(view: ResolvedView, principal: AdminPrincipal): ReadonlySet<string> {
  return withheldFields(view.repository.policy, view.info, 'read', actingOf(principal));
}

/**
 * The fields the read rule shows the admin user on some rows only that the repository left
 * out of this row, as it answered it under that rule (all of them without a row): the
 * update page neither shows nor offers them, and its event does not log them.
 */
export function maskedOn(
  view: ResolvedView,
  principal: AdminPrincipal,
  row: Readonly<Record<string, unknown>> | undefined,
): ReadonlySet<string> {
  const rowOnly = rowOnlyFields(view.repository.policy, view.info, 'read', actingOf(principal));
  return row ? new Set([...rowOnly].filter((field) => !(field in row))) : rowOnly;
}

/** The fields of a row the admin user may not see: those withheld on every row, and those `maskedOn` it. */
export function unreadableOn(
  view: ResolvedView,
  principal: AdminPrincipal,
  row: Readonly<Record<string, unknown>> | undefined,
): ReadonlySet<string> {
  const acting = actingOf(principal);
  const withheld = withheldFields(view.repository.policy, view.info, 'read', acting);
  if (!row || withheld.size === 0) return withheld;
  const masked = maskedOn(view, principal, row);
  const rowOnly = rowOnlyFields(view.repository.policy, view.info, 'read', acting);
  return new Set([...withheld].filter((field) => !rowOnly.has(field) || masked.has(field)));
}

/** The column that labels the view's rows for the admin user: its display field, or the key when the list rule withholds it. */
export function labelColumn(view: ResolvedView, principal: AdminPrincipal): string {
  const listed = withheldFields(view.repository.policy, view.info, 'list', actingOf(principal));
  return listed.has(view.displayField) ? view.info.idColumn : view.displayField;
}

/** The fields the update rule does not let the admin user write (none with full access). */
export function unwritableOf(view: ResolvedView, principal: AdminPrincipal): ReadonlySet<string> {
  const acting = actingOf(principal);
  return acting.isSuperuser ? new Set() : withheldFields(view.repository.policy, view.info, 'update', acting);
}

/**
 * The fields a new row needs (nothing else fills them: no default, auto field or stamp)
 * which the create rule does not let the admin user set: while there is one, the admin
 * user cannot create a row of the view, so Create is not offered and a forced one is a 403.
 */
// `view` is the view as declared (not `seenBy`): its create fields are all the form may have.
export async function neededButWithheld(knex: Knex, view: ResolvedView, principal: AdminPrincipal): Promise<string[]> {
  const acting = actingOf(principal);
  if (acting.isSuperuser) return [];
  const withheld = withheldFields(view.repository.policy, view.info, 'create', acting);
  if (withheld.size === 0) return [];
  return [...(await requiredOnCreate(knex, view))].filter((field) => withheld.has(field));
}

/** Whether the admin user may create rows of the view: the create rule lets it and withholds no field a new row needs. */
export async function mayCreate(knex: Knex, view: ResolvedView, principal: AdminPrincipal): Promise<boolean> {
  return may(view, 'create', principal) && (await neededButWithheld(knex, view, principal)).length === 0;
}

/** A 403 unless the admin user may create rows of the view (`mayCreate`), saying why when a needed field is withheld. */
export async function requireCreate(knex: Knex, view: ResolvedView, principal: AdminPrincipal): Promise<void> {
  requireMay(view, 'create', principal);
  if ((await neededButWithheld(knex, view, principal)).length > 0)
    throw messageError((english) => new ForbiddenError(english), 'error.createNeedsWithheld');
}
