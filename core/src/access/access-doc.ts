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
