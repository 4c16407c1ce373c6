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

/**
 * The extra filters an `If-Match` header asks of the row's write; 428 when required and
 * absent. Several tags (`"a", "b"`) let the write happen while the row has any of them.
 */
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
  const key = keyHash(ctx, filters as Record<string, unknown>);
  // A tag of another row, or one naming no stored column, can never match: left out.
  const conditions = tags
    .map((tag) => conditionOf(ctx, key, tag))
    .filter((condition): condition is [string, number | null] => condition !== undefined);
  if (conditions.length === 0) throw new PreconditionFailedError();
  // A row's tags all name one column (its version, or its update time).
  const [column] = conditions[0];
  const values = [...new Set(conditions.filter(([name]) => name === column).map(([, value]) => value))];
  if (values.length === 1) return { [column]: values[0] === null ? null : revive(column, values[0]) };
  return { [column]: values.filter((value) => value !== null).map((value) => revive(column, value as number)) };
}

/** The column and stored value one tag names (null: never updated), or undefined when it cannot match. */
function conditionOf(ctx: CrudContext, key: string, tag: string): [string, number | null] | undefined {
  const match = /^"([vt])\.([\w-]+)\.([\w.:-]+)"$/.exec(tag);
  if (!match || match[2] !== key) return undefined;
  const [, kind, , value] = match;
  if (kind === 'v') {
    if (ctx.info.columns.get('version')?.kind !== 'integer' || !/^\d{1,15}$/.test(value)) return undefined;
    return ['version', Number(value)];
  }
  const column = ctx.updatedAtColumn;
  if (ctx.info.columns.get(column)?.kind !== 'datetime') return undefined;
  if (value === 'n') return [column, null];
  return /^\d{1,15}$/.test(value) ? [column, Number(value)] : undefined;
}

/** A tag's stored value as the column holds it: a version as is, an update time as a Date. */
const revive = (column: string, value: number): number | Date => (column === 'version' ? value : new Date(value));

/** The condition as filters of the write's own WHERE (a null as `__is`, several values as `__in`, a time as ISO text). */
function asFilters(condition: Filters): Filters {
  const filters: Filters = {};
  const text = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
  for (const [column, value] of Object.entries(condition)) {
    if (value === null) filters[`${column}__is`] = null;
    else if (Array.isArray(value)) filters[`${column}__in`] = value.map(text);
    else filters[column] = text(value);
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
