import { ACCESS_KEY, ownMetadata } from '../model/declarations';
import { ConfigurationError } from '../errors/configuration-error';
import type { ModelInfo } from '../model/model-info';
import { ACCESS_OPERATIONS, type AccessOperation, type AccessPolicy, type OperationRule } from './policy';

/** A policy with `default` spread over the operations it covers: one rule (or none) per operation. */
export type EffectivePolicy = Readonly<Record<AccessOperation, Readonly<OperationRule> | undefined>>;

/** The effective rules of a declared policy (each operation's own rule, else `default`). */
export function effectivePolicy(policy: AccessPolicy): EffectivePolicy {
  const rules = {} as Record<AccessOperation, OperationRule | undefined>;
  for (const op of ACCESS_OPERATIONS) rules[op] = policy[op] ?? policy.default;
  return Object.freeze(rules);
}

/** The effective rules a model declares with `@Access`/`access()`, or undefined when it declares none. */
export function policyOf(model: Function): EffectivePolicy | undefined {
  const declared = ownMetadata<AccessPolicy>(ACCESS_KEY, model);
  return declared ? effectivePolicy(declared) : undefined;
}

const KNOWN = new Set<string>([...ACCESS_OPERATIONS, 'default']);

/**
 * Checks a policy against its model at startup: unknown operations, and unknown columns
 * in a row rule or a field list, fail naming them.
 */
export function checkPolicy(info: ModelInfo, policy: AccessPolicy): void {
  const name = info.model.name;
  const unknownOps = Object.keys(policy).filter((op) => !KNOWN.has(op));
  if (unknownOps.length > 0)
    throw new ConfigurationError(
      `Access policy of ${name}: unknown operation(s) ${unknownOps.join(', ')} (use ${[...KNOWN].join(', ')})`,
    );
  const unknown = new Set<string>();
  for (const [op, rule] of Object.entries(policy) as [string, OperationRule | undefined][]) {
    if (!rule) continue;
    if (rule.rows && typeof rule.rows === 'object') ruleColumns(rule.rows, (c) => check(c, `${op}.rows`));
    if (rule.fields && typeof rule.fields === 'object') {
      const fields = 'except' in rule.fields ? rule.fields.except : rule.fields;
      for (const field of fields as readonly string[]) check(field, `${op}.fields`);
    }
    for (const field of Object.keys(rule.rowFields ?? {})) check(field, `${op}.rowFields`);
  }
  if (unknown.size > 0)
    throw new ConfigurationError(`Access policy of ${name} names unknown column(s): ${[...unknown].join(', ')}`);

  function check(column: string, where: string): void {
    if (!info.columns.has(column)) unknown.add(`${where}: ${column}`);
  }
}

/** Calls `visit` with the column of every key of a row rule (`owner_id__in` → `owner_id`), `_or` included. */
function ruleColumns(rule: Record<string, unknown>, visit: (column: string) => void): void {
  for (const [key, value] of Object.entries(rule)) {
    if (key === '_or' && value !== null && typeof value === 'object') {
      ruleColumns(value as Record<string, unknown>, visit);
      continue;
    }
    const at = key.lastIndexOf('__');
    visit(at > 0 ? key.slice(0, at) : key);
  }
}

/** Whether a model or any model it relates to declares a policy (then every route passes the principal). */
export function guardedModel(info: ModelInfo, hasPolicy: boolean): boolean {
  if (hasPolicy) return true;
  return Object.values(info.relations).some((relation) => policyOf(relation.relatedModelClass) !== undefined);
}
