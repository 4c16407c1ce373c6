import type { AdminPrincipal } from './admin-auth';
import type { AdminContext } from './context';
import type { FormField } from './form-fields';
import { rowCells, type Shown } from './format-value';
import type { ResolvedView } from './model-view';
import { referenceLabels } from './reference-labels';
import { unreadableOn, unwritableOf } from './view-access';

/** A field the update page shows without an input: its label and its value as a list cell shows it. */
export interface ReadOnlyField {
  name: string;
  label: string;
  shown: Shown;
}

/**
 * The view's update fields the admin user reads on this row but may not write: the page
 * shows them as text, with no input, so the form posts nothing for them. A field the read
 * rule hides on this row (or every row) and a hidden column (a password's hash) are never
 * among them; with full access there are none.
 */
// `view` is the view as declared (not `seenBy`): its update fields are all the page may show.
export async function readOnlyFields(
  ctx: AdminContext,
  view: ResolvedView,
  principal: AdminPrincipal,
  { row, locale }: { row: Record<string, unknown>; locale: string },
): Promise<ReadOnlyField[]> {
  const unwritable = unwritableOf(view, principal);
  if (unwritable.size === 0) return [];
  const unread = unreadableOn(view, principal, row);
  // `row` is as the repository answered it under the read rule: a field it left out is not shown.
  const names = view.updateFields.filter(
    (name) =>
      unwritable.has(name) &&
      !unread.has(name) &&
      !view.hidden.has(name) &&
      name !== view.password?.field &&
      view.info.columns.has(name) &&
      name in row,
  );
  if (names.length === 0) return [];
  const references = await referenceLabels(ctx, view, [row], principal);
  const cells = rowCells(view, row, names, { references, locale });
  return names.map((name, i) => ({ name, label: view.labels.columns.get(name) ?? name, shown: cells[i] }));
}

/** The update form's inputs with the read-only fields among them, each where the view's update schema puts it. */
export function amongInputs(view: ResolvedView, inputs: FormField[], readOnly: ReadOnlyField[]): FormField[] {
  if (readOnly.length === 0) return inputs;
  const rank = (name: string) => view.updateFields.indexOf(name);
  const shown = readOnly.map((f) => ({ ...f, input: 'readonly', required: false, value: '' }));
  return [...inputs, ...shown].sort((a, b) => rank(a.name) - rank(b.name));
}
