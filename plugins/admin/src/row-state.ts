import { createHash } from 'node:crypto';
import { formFields } from './form-fields';
import type { ResolvedView } from './model-view';

// Two editors of one row: the update form carries a fingerprint of the row as it was
// rendered, and a save whose row has changed since then (someone else saved it) shows
// both values instead of overwriting. The write itself is also conditional on the row's
// version or update time, so a change landing between the check and the write is caught.

type Row = Record<string, unknown>;

/** A fingerprint of a row's stored state (every column, in a fixed order). */
export function rowState(row: Row): string {
  const canonical = Object.keys(row)
    .sort()
    .map((key) => [key, row[key] instanceof Date ? (row[key] as Date).toISOString() : row[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/** The column a write may hold unchanged to be sure of the row it read: its version, else its update time. */
export function stateColumn(view: ResolvedView): string | undefined {
  if (view.info.columns.get('version')?.kind === 'integer') return 'version';
  return view.info.columns.get('updated_at')?.kind === 'datetime' ? 'updated_at' : undefined;
}

/** One field two editors disagree on: what this editor sent, and what is saved now. */
export interface Conflict {
  label: string;
  yours: string;
  saved: string;
}

/** The fields whose sent value differs from the row as saved now, as the form shows each. */
export function conflictsOf(view: ResolvedView, fields: string[], sent: Row, saved: Row): Conflict[] {
  const choices = new Map();
  const shown = (values: Row) => new Map(formFields(view, fields, values, { choices }).map((f) => [f.name, f]));
  const mine = shown(sent);
  const theirs = shown(saved);
  const conflicts: Conflict[] = [];
  for (const name of fields) {
    if (!(name in sent)) continue;
    const text = (field: ReturnType<typeof mine.get>) =>
      field?.input === 'checkbox' ? String(field.checked ?? false) : String(field?.value ?? '');
    const yours = text(mine.get(name));
    const now = text(theirs.get(name));
    if (yours !== now) conflicts.push({ label: mine.get(name)?.label ?? name, yours, saved: now });
  }
  return conflicts;
}
