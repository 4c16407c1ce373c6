import type { ModelInfo } from '../model/model-info';
import type { Principal } from '../http/principal';
import type { EffectivePolicy } from './effective';
import { hiddenFields, passes, rowMasks, unseenFields } from './enforce';
import type { AccessOperation } from './policy';

// What an interface built on the policy asks before offering an action: whether the
// caller may perform it at all, and which fields it withholds. Rows stay the repository's
// to limit, in the statement it sends.

/** Whether the policy lets the principal perform the operation (an operation without a rule is open to anyone). */
export function permits(
  policy: EffectivePolicy | undefined,
  op: AccessOperation,
  principal: Principal | null,
): boolean {
  const rule = policy?.[op];
  if (!rule) return true;
  return principal !== null && passes(rule, principal);
}

/**
 * The model's fields the operation withholds from the principal: those a read or list
 * does not answer on every row (a field shown on some rows only is withheld too, so an
 * interface neither lists, searches nor sorts on it), or those a create or update may not set.
 */
export function withheldFields(
  policy: EffectivePolicy | undefined,
  info: ModelInfo,
  op: AccessOperation,
  principal: Principal | null,
): ReadonlySet<string> {
  return unseenFields(info, policy?.[op], principal);
}

/**
 * The model's fields the read or list rule shows the principal on some rows only (a subset
 * of `withheldFields`): an interface may show one on the rows the repository answers it on,
 * but neither search, filter nor sort on it.
 */
export function rowOnlyFields(
  policy: EffectivePolicy | undefined,
  info: ModelInfo,
  op: 'read' | 'list',
  principal: Principal | null,
): ReadonlySet<string> {
  const rule = policy?.[op];
  const hidden = hiddenFields(info, rule, principal);
  return new Set(
    rowMasks(rule, principal)
      .map((mask) => mask.field)
      .filter((field) => !hidden.has(field)),
  );
}
