import { ValidationError } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A primary-key value of the view's type, from path text or a JSON value: integers,
 * numbers, UUIDs and other strings. Answers undefined when it cannot be one (a path
 * answers 404 then; a bulk delete 422).
 */
export function parseId(view: ResolvedView, raw: unknown): string | number | undefined {
  const column = view.info.columns.get(view.info.idColumn)!;
  if (column.kind === 'integer') {
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[+-]?\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    return Number.isSafeInteger(value) && (column.minimum === undefined || value >= column.minimum) && (column.maximum === undefined || value <= column.maximum) ? value : undefined;
  }
  if (column.kind === 'number') {
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[+-]?\d{1,16}(\.\d{1,16})?$/.test(raw) ? Number(raw) : NaN;
    return Number.isFinite(value) ? value : undefined;
  }
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > (column.maxLength ?? 255)) return undefined;
  if (view.formats.get(view.info.idColumn) === 'uuid') return UUID.test(raw) ? raw.toLowerCase() : undefined;
  return raw;
}

/** Most ids one bulk delete takes. */
export const BULK_MAX = 1000;

/** The ids of a bulk delete, each of the key's type; a wrong one is a 422 naming its position. */
export function parseIds(view: ResolvedView, ids: unknown[]): (string | number)[] {
  if (ids.length > BULK_MAX) throw ValidationError.of(['body', 'ids'], `At most ${BULK_MAX} ids at once`, 'too_long');
  return ids.map((raw, index) => {
    const id = parseId(view, raw);
    if (id === undefined) throw ValidationError.of(['body', 'ids', index], `Not a valid ${view.info.idColumn}`, 'id_parsing');
    return id;
  });
}
