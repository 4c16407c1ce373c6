import type { Knex } from 'knex';
import type { UpdateOptions } from '../data/repository-options';
import { dialectOf } from '../data/dialect';
import { normalizeValue } from '../data/normalize';
import { NotFoundError } from '../errors/http-error';
import type { CrudContext } from './crud-context';

// A JSON merge patch (RFC 7396) of one row. On a plain column it is the JSON update it
// looks like (`null` clears the field); an object given for a JSON column merges into the
// stored object instead of replacing it, so that column is read and written under one row
// lock, in one transaction.

type Row = Record<string, unknown>;

const isObject = (value: unknown): value is Row =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);

/** RFC 7396's MergePatch: `null` removes a member, an object merges, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Row = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Updates one row with a merge patch of its values: merged JSON columns, the rest as given. */
export async function mergeUpdate(ctx: CrudContext, db: Knex, values: Row, options: UpdateOptions) {
  const merged = Object.keys(values).filter(
    (key) => ctx.info.columns.get(key)?.kind === 'json' && isObject(values[key]),
  );
  if (merged.length === 0) return ctx.repo.update(db, values, options);
  return db.transaction(async (trx) => {
    const read = trx(ctx.info.table).where(keyOf(ctx, options.filters)).first(merged);
    // SQLite runs one writer at a time: its transaction is the lock.
    const stored = (await (dialectOf(trx) === 'sqlite' ? read : read.forUpdate())) as Row | undefined;
    if (!stored) throw new NotFoundError('Item not found');
    const next = { ...values };
    for (const key of merged) {
      const column = ctx.info.columns.get(key)!;
      next[key] = JSON.stringify(mergePatch(normalizeValue(stored[key], column), values[key]));
    }
    return ctx.repo.update(trx, next, options);
  });
}

/** The key columns of the write's filters (the path id), as a WHERE of the table. */
function keyOf(ctx: CrudContext, filters: Record<string, unknown>): Row {
  return Object.fromEntries(ctx.info.idColumns.map((column) => [`${ctx.info.table}.${column}`, filters[column]]));
}
