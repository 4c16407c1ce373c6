import type { RouteDoc } from '../http/route';
import type { EffectivePolicy } from './effective';
import type { AccessOperation } from './policy';

/**
 * What an operation's OpenAPI entry says of its rule: it needs a caller (the document adds
 * the app's security requirement and the 401/403 answers), and the permissions and roles
 * of which one lets a caller in (`x-crudsmith-permissions`, `x-crudsmith-roles`).
 */
export function accessDoc(policy: EffectivePolicy | undefined, op: AccessOperation): Partial<RouteDoc> {
  const rule = policy?.[op];
  if (!rule) return {};
  return {
    requiresPrincipal: true,
    extensions: {
      'x-crudsmith-permissions': [...(rule.permissions ?? [])],
      'x-crudsmith-roles': [...(rule.roles ?? [])],
    },
  };
}

/**
 * The entry of a route that needs every one of several rules (an upsert: create's and
 * update's). One rule, or several that ask the same, read as one rule does; rules that ask
 * differently are listed in `x-crudsmith-all-of`, one entry per rule with its operation
 * and its own permissions and roles: the caller must pass each, by any one of its own.
 * Listing their union under the single-rule keys would tell a caller who meets one rule
 * that it gets in.
 */
export function accessDocOfAll(
  policy: EffectivePolicy | undefined,
  ops: readonly AccessOperation[],
): Partial<RouteDoc> {
  const ruled = ops.map((op) => ({ op, doc: accessDoc(policy, op) })).filter(({ doc }) => doc.requiresPrincipal);
  const distinct = new Set(ruled.map(({ doc }) => JSON.stringify(doc.extensions)));
  if (distinct.size <= 1) return ruled[0]?.doc ?? {};
  return {
    requiresPrincipal: true,
    extensions: { 'x-crudsmith-all-of': ruled.map(({ op, doc }) => ({ operation: op, ...doc.extensions })) },
  };
}
