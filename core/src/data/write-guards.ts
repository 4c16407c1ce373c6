import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { BadRequestError, NotFoundError } from '../errors/http-error';
import { rethrowMapped } from '../errors/database-error';
import { reuseCompiledSql } from './compiled-sql';
import type { Filters } from './filters';
import type { ModelInfo } from '../model/model-info';
import { startBuild, whereQuery, type ReadContext } from './read-query';
import type { WriteOptions } from './repository-options';
import { noteWrite, readFromPrimary } from './consistency';
import { replicaSetOf } from './replicas';
import { keyOf } from './row-key';

// What the repository's writes check and run under: a filter they must have, the ids they
// will touch, the primary their own reads go to, and the 404 of a write that touched none.

type Row = Record<string, unknown>;

/**
 * A write without a filter would act on the whole table (or on whichever row comes
 * first): refused unless the caller says `all: true`.
 */
export function refuseUnfiltered(
  info: ModelInfo,
  method: string,
  filters: Filters | undefined,
  options: WriteOptions,
): void {
  if (options.all === true) return;
  if (filters && Object.values(filters).some((value) => value !== undefined)) return;
  throw new ConfigurationError(
    `${method} on ${info.table} without a filter would act on every row: pass { all: true } to mean it`,
  );
}

/** The ids a write will touch: 404 when none, 400 when several without allowMultiple. */
export async function matchingIds(
  db: Knex,
  ctx: ReadContext,
  filters: Filters,
  options: WriteOptions & { includeDeleted?: boolean },
): Promise<unknown[]> {
  const { info } = ctx;
  const build = await startBuild(db, ctx, [filters]);
  const qb = whereQuery(build, ctx, { filters, includeDeleted: options.includeDeleted }).select(
    info.idColumns.map((column) => `${info.table}.${column}`),
  );
  if (!options.allowMultiple) qb.limit(2);
  const ids = ((await reuseCompiledSql(qb)) as Row[]).map((r) => keyOf(info, r));
  if (ids.length === 0) throw new NotFoundError('Item not found');
  if (ids.length > 1 && !options.allowMultiple) {
    throw new BadRequestError('More than one record matches; pass allowMultiple to change them all');
  }
  return ids;
}

/** Runs a database call, turning the client's mistakes (duplicates, bad values) into HTTP errors. */
export async function guardWrite<T>(db: Knex, work: () => Promise<T>): Promise<T> {
  try {
    // A write's own reads (a row read back, ids read first) are the primary's.
    const set = replicaSetOf(db);
    if (!set) return await work();
    const done = await readFromPrimary(work);
    noteWrite(set);
    return done;
  } catch (error) {
    rethrowMapped(error);
  }
}

/** The number of rows a conditional write touched; none is a 404. */
export function found(count: number): number {
  if (count === 0) throw new NotFoundError('Item not found');
  return count;
}
