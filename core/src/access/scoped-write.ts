import { ForbiddenError, NotFoundError } from '../errors/http-error';
import type { Filters } from '../data/filters';
import type { ModelInfo } from '../model/model-info';
import type { Principal } from '../http/principal';
import type { EffectivePolicy } from './effective';
import { authorize, excludedFields, refuseUnwritable, rowCondition, withRows } from './enforce';
import type { AccessOperation } from './policy';

/** One write under a policy: who is writing what, where. */
export interface WriteScope {
  info: ModelInfo;
  principal: Principal | null;
  filters: Filters;
  /** The values a create or update writes (checked against the rule's fields). */
  values?: Record<string, unknown>;
}

/**
 * Runs a write under the policy: 401/403 for a caller the rule refuses, 422 for a value
 * it may not write, and the write's WHERE holds the read rule and the operation's own row
 * rule. A row that the caller may read but the write did not reach is a 403; one it may
 * not read stays a 404, so its existence is not revealed.
 */
export async function scopedWrite<T>(
  policy: EffectivePolicy | undefined,
  op: Exclude<AccessOperation, 'read' | 'list'>,
  scope: WriteScope & { readable(filters: Filters): Promise<boolean> },
  write: (filters: Filters) => Promise<T>,
): Promise<T> {
  const rule = policy?.[op];
  const { principal } = scope;
  authorize(rule, principal);
  if (scope.values) refuseUnwritable(scope.values, excludedFields(scope.info, rule, principal));
  const read = rowCondition(policy?.read, principal);
  const own = rowCondition(rule, principal);
  const visible = withRows(scope.filters, read);
  try {
    return await write(withRows(visible, own));
  } catch (error) {
    if (own && error instanceof NotFoundError && (await scope.readable(visible))) throw new ForbiddenError();
    throw error;
  }
}
