import type { Knex } from 'knex';
import type { ReadContext } from './read-query';
import type { RepositoryOptions } from './repository-options';
import { storedDates } from './sqlite-datetime';
import { writeValues } from './write-values';

// The values a write stores besides the caller's: the creation, update and deletion times
// and the deleted flag, in the columns the repository's options name.

type Row = Record<string, unknown>;

/** The values a create writes for this data: each coerced to its column, the creation time stamped. */
export function createValues(ctx: ReadContext, options: RepositoryOptions, data: Row, db: Knex): Row {
  const values = writeValues(ctx.info, data);
  const stamp = options.createdAtColumn === undefined ? 'created_at' : options.createdAtColumn;
  if (stamp !== null && ctx.info.columns.get(stamp)?.kind === 'datetime' && !(stamp in values))
    values[stamp] = new Date();
  return storedDates(values, db);
}

/** The values an update writes for this data: each coerced to its column, the update time stamped. */
export function updateValues(ctx: ReadContext, options: RepositoryOptions, data: Row, db: Knex): Row {
  const values = writeValues(ctx.info, data);
  const stamp = options.updatedAtColumn ?? 'updated_at';
  if (ctx.info.columns.get(stamp)?.kind === 'datetime' && !(stamp in values)) values[stamp] = new Date();
  return storedDates(values, db);
}

/** The values a soft delete writes (the flag, the deletion time, `extra`); undefined when deletes are hard. */
export function softDeleteValues(
  ctx: ReadContext,
  options: RepositoryOptions,
  extra: Row | undefined,
  db: Knex,
): Row | undefined {
  const { deletedFlag } = ctx;
  if (!deletedFlag) return undefined;
  const values: Row = { ...(extra ? writeValues(ctx.info, extra) : {}), [deletedFlag]: true };
  const at = options.deletedAtColumn ?? 'deleted_at';
  // A deletion time the caller gives (a DeleteConfig auto field) is the one written.
  if (ctx.info.columns.has(at) && values[at] === undefined) values[at] = new Date();
  return storedDates(values, db);
}
