import type { Knex } from 'knex';
import { excludedFields, refuseUnwritable, rowCondition, withRows } from '../access/enforce';
import type { AccessOperation } from '../access/policy';
import type { Filters } from '../data/filters';
import { ForbiddenError, NotFoundError } from '../errors/http-error';
import type { NeutralRequest } from '../http/neutral';
import type { Principal } from '../http/principal';
import { callerOf, refuseHiddenKeys } from './access-guard';
import type { CrudContext } from './crud-context';
import type { Query } from './query-values';

// The bulk operations under a model's access policy, each by the rule of the single-row
// operation it generalises: bulk create by `create`, bulk update by `update`, bulk delete
// by `delete`, an upsert by both `create` and `update`. The row rules go into the one
// UPDATE or DELETE statement's WHERE; created rows are checked in the insert's
// transaction; bodies are held to the field rules before anything is written.

type Row = Record<string, unknown>;

/** One bulk request's caller and the rules that apply to it; `principal` undefined when the route applies none. */
export interface BulkAccess {
  ctx: CrudContext;
  principal: Principal | null | undefined;
}

/** Looks up the caller of a guarded bulk route and lets it in only when every named rule does (401/403). */
export async function bulkAccess(ctx: CrudContext, req: NeutralRequest, ops: AccessOperation[]): Promise<BulkAccess> {
  let principal: Principal | null | undefined;
  for (const op of ops) principal = await callerOf(ctx, req, op);
  return { ctx, principal };
}

/** 422 for a body field one of the operations' rules does not let this caller write. */
export function refuseBodyFields(access: BulkAccess, ops: AccessOperation[], body: Row): void {
  const { ctx, principal } = access;
  if (principal === undefined) return;
  for (const op of ops) refuseUnwritable(body, excludedFields(ctx.info, ctx.repo.policy?.[op], principal));
}

/** 400 for a `filter` key the caller may not filter the list on, as the list answers it. */
export function refuseFilterKeys(access: BulkAccess, filter: Row): void {
  if (access.principal === undefined) return;
  refuseHiddenKeys(access.ctx, access.principal, { query: filter as Query, sortColumns: [] });
}

/**
 * In the write's transaction: 403 (which rolls it back) unless every row whose `column`
 * holds one of the values is inside the scope (as `changeScope` narrows it). No scope:
 * nothing to check.
 */
export async function requireInScope(
  access: BulkAccess,
  trx: Knex,
  scope: ((filters: Filters) => Filters) | undefined,
  where: { column: string; values: unknown[] },
): Promise<void> {
  if (!scope || where.values.length === 0) return;
  for (let start = 0; start < where.values.length; start += 1000) {
    const chunk = where.values.slice(start, start + 1000);
    const filters = { [`${where.column}__in`]: chunk };
    const all = await access.ctx.repo.count(trx, filters, { includeDeleted: true });
    const inScope = await access.ctx.repo.count(trx, scope(filters), { includeDeleted: true });
    if (inScope < all) throw new ForbiddenError();
  }
}

/** The create rule's row rule for this caller, as a scope new rows must be in; undefined when it has none. */
export function createdScope(access: BulkAccess): ((filters: Filters) => Filters) | undefined {
  const { ctx, principal } = access;
  const rows = principal === undefined ? undefined : rowCondition(ctx.repo.policy?.create, principal);
  return rows && ((filters) => withRows(filters, rows));
}

/** The scope of rows the caller may change with `op` (read rule and its own); undefined when no row rule applies. */
export function changeScope(access: BulkAccess, op: AccessOperation): ((filters: Filters) => Filters) | undefined {
  const { ctx, principal } = access;
  if (principal === undefined) return undefined;
  const read = rowCondition(ctx.repo.policy?.read, principal);
  const own = rowCondition(ctx.repo.policy?.[op], principal);
  if (!read && !own) return undefined;
  return (filters) => withRows(filters, read, own);
}

/**
 * In an upsert's transaction, for the stored row of `key`: 404 when the caller may not
 * read it (its existence is not revealed), 403 when it may read but not update it.
 */
export async function requireUpdatable(access: BulkAccess, trx: Knex, key: Filters): Promise<void> {
  const { ctx, principal } = access;
  if (principal === undefined) return;
  const read = rowCondition(ctx.repo.policy?.read, principal);
  if (read && (await ctx.repo.count(trx, withRows(key, read), { includeDeleted: true })) === 0)
    throw new NotFoundError();
  const scope = changeScope(access, 'update');
  if (scope && (await ctx.repo.count(trx, scope(key), { includeDeleted: true })) === 0) throw new ForbiddenError();
}

/** `requireUpdatable` for every stored row whose `column` holds one of the values: 404, then 403. */
export async function requireUpdatableRows(
  access: BulkAccess,
  trx: Knex,
  where: { column: string; values: unknown[] },
): Promise<void> {
  const { ctx, principal } = access;
  const read = principal === undefined ? undefined : rowCondition(ctx.repo.policy?.read, principal);
  try {
    await requireInScope(access, trx, read && ((filters) => withRows(filters, read)), where);
  } catch (error) {
    throw error instanceof ForbiddenError ? new NotFoundError() : error;
  }
  await requireInScope(access, trx, changeScope(access, 'update'), where);
}

/** The answered rows without the fields the read rule hides from the caller. */
export function answeredRows<T extends Row | null>(access: BulkAccess, rows: T[]): T[] {
  const { ctx, principal } = access;
  if (principal === undefined) return rows;
  const present = rows.filter((row): row is Exclude<T, null> => row !== null);
  if (present.length > 0)
    ctx.repo.stripAnswer(present, principal, { joinsConfig: ctx.joins, nestJoins: ctx.nestJoins });
  return rows;
}
