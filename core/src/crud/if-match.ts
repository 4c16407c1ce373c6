import type { Knex } from 'knex';
import type { Filters } from '../data/filters';
import { NotFoundError, PreconditionFailedError, PreconditionRequiredError } from '../errors/http-error';
import type { NeutralRequest } from '../http/neutral';
import type { CrudContext } from './crud-context';
import { keyHash, listedTags } from './etag';
import { rowCondition, withRows } from '../access/enforce';
import type { Principal } from '../http/principal';

// `If-Match` on the writes of one row. The tag becomes one more condition of the write's
// own WHERE (the version, or the update time, the tag was made from), so the check and
// the write are one statement: two writers holding one tag cannot both win. A tag that is
// a hash of the answer names no stored column and cannot be checked inside the write:
// it is a 412, never a read followed by a write.

/** The extra filters an `If-Match` header asks of the row's write; 428 when required and absent. */
export function ifMatchFilters(
  ctx: CrudContext,
  req: NeutralRequest,
  filters: Filters,
  required: boolean,
): Filters | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) {
    if (required) throw new PreconditionRequiredError();
    return undefined;
  }
  const tags = listedTags(header);
  if (tags.includes('*')) return {};
  // A write carries one condition: one tag, of this row, naming a stored column.
  const match = tags.length === 1 ? /^"([vt])\.([\w-]+)\.([\w.:-]+)"$/.exec(tags[0]) : null;
  if (!match || match[2] !== keyHash(ctx, filters as Record<string, unknown>)) throw new PreconditionFailedError();
  const [, kind, , value] = match;
  if (kind === 'v') {
    if (ctx.info.columns.get('version')?.kind !== 'integer' || !/^\d{1,15}$/.test(value))
      throw new PreconditionFailedError();
    return { version: Number(value) };
  }
  const column = ctx.updatedAtColumn;
  if (ctx.info.columns.get(column)?.kind !== 'datetime') throw new PreconditionFailedError();
  if (value === 'n') return { [column]: null };
  if (!/^\d{1,15}$/.test(value)) throw new PreconditionFailedError();
  return { [column]: new Date(Number(value)) };
}

/** The condition as filters of the write's own WHERE (a null as `__is`, a time as ISO text). */
function asFilters(condition: Filters): Filters {
  const filters: Filters = {};
  for (const [column, value] of Object.entries(condition)) {
    if (value === null) filters[`${column}__is`] = null;
    else filters[column] = value instanceof Date ? value.toISOString() : value;
  }
  return filters;
}

/**
 * Runs a write of one row under the request's `If-Match`. When the conditional write finds
 * no row, the row's presence alone (a read after nothing was written) tells 412 from 404.
 */
export async function writeIfMatch<T>(
  ctx: CrudContext,
  req: NeutralRequest,
  target: { db: Knex; filters: Filters; includeDeleted?: boolean; required: boolean; principal?: Principal | null },
  write: (filters: Filters, unchanged?: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  // A row outside the caller's read rule is not there, for the 412 as for everything else.
  const seen = target.principal === undefined ? target.filters : readableRows(ctx, target.principal, target.filters);
  const present = () => ctx.repo.exists(target.db, seen, { includeDeleted: target.includeDeleted });
  let condition: Filters | undefined;
  try {
    condition = ifMatchFilters(ctx, req, target.filters, target.required);
  } catch (error) {
    // A tag that cannot match: still a 404 when there is no row to precondition.
    if (error instanceof PreconditionFailedError && !(await present())) throw new NotFoundError('Item not found');
    throw error;
  }
  if (!condition) return write(target.filters);
  try {
    return await write({ ...target.filters, ...asFilters(condition) }, condition);
  } catch (error) {
    if (error instanceof NotFoundError && Object.keys(condition).length > 0 && (await present()))
      throw new PreconditionFailedError();
    throw error;
  }
}

function readableRows(ctx: CrudContext, principal: Principal | null, filters: Filters): Filters {
  return withRows(filters, rowCondition(ctx.repo.policy?.read, principal));
}
