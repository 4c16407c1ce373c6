import { authorize, relatedAccess, unseenFields } from '../access/enforce';
import type { AccessOperation } from '../access/policy';
import { BadRequestError } from '../errors/http-error';
import type { NeutralRequest } from '../http/neutral';
import { principalOf, type Principal } from '../http/principal';
import type { CrudContext } from './crud-context';
import type { DeclaredFilter } from './filter-config';
import type { Query } from './query-values';

// The generated routes' side of an access policy: the caller is looked up only on a
// route whose model (or a related one) has a policy, and is refused (401/403) before its
// body is read. The repository, given the principal, applies the rest.

/**
 * The caller of a guarded route (null when anonymous), refused at once when the
 * operation's rule does not let it in; undefined when the route applies no policy.
 */
export async function callerOf(
  ctx: CrudContext,
  req: NeutralRequest,
  op: AccessOperation,
): Promise<Principal | null | undefined> {
  if (!ctx.guarded) return undefined;
  const principal = await principalOf(req);
  authorize(ctx.repo.policy?.[op], principal);
  return principal;
}

/**
 * A list may neither filter nor sort on a field the caller may not read on every row (its
 * own model's or a related one's): a 400, as for a key the endpoint does not declare, so the rows a
 * filter keeps or the order of a page never reveal it.
 */
export function refuseHiddenKeys(
  ctx: CrudContext,
  principal: Principal | null,
  list: { query: Query; sortColumns: readonly string[] },
): void {
  const own = unseenFields(ctx.info, ctx.repo.policy?.list, principal);
  const related = relatedAccess(principal);
  for (const column of list.sortColumns) {
    if (own.has(column)) {
      const shown = [...ctx.sortable].filter((c) => !own.has(c));
      throw new BadRequestError(`Invalid sort column '${column.slice(0, 64)}': sort by ${shown.join(', ')}`);
    }
  }
  for (const filter of ctx.filters) {
    if (filter.dependency || !given(filter, list.query)) continue;
    const hidden = filter.owner === ctx.info ? own : related.hidden(filter.owner);
    if (hidden.has(filter.column.name))
      throw new BadRequestError(`Invalid filter '${filter.key}': this endpoint does not filter on it`);
  }
}

function given(filter: DeclaredFilter, query: Query): boolean {
  if (query[filter.key] !== undefined) return true;
  return filter.op === 'eq' && (query[filter.field] !== undefined || query[`${filter.field}__eq`] !== undefined);
}
