import { ForbiddenError, UnauthorizedError, ValidationError } from '../errors/http-error';
import { applyFilters, ROW_RULES, type Filters, type RowCondition } from '../data/filters';
import type { ModelInfo } from '../model/model-info';
import type { Principal } from '../http/principal';
import { policyOf, type EffectivePolicy } from './effective';
import type { AccessOperation, FieldSet, OperationRule, RowRule } from './policy';

// The policy applied to one caller: who-may checks (401, 403), row rules turned into
// conditions of the statement being built, and field sets turned into the columns an
// answer leaves out or a body may not set.

const NO_FIELDS: ReadonlySet<string> = new Set();

/** Whether the rule lets the principal perform its operation: 401 without one, 403 when refused. */
export function authorize(rule: OperationRule | undefined, principal: Principal | null): void {
  if (!rule) return;
  if (!principal) throw new UnauthorizedError();
  if (!passes(rule, principal)) throw new ForbiddenError();
}

/** Whether the principal meets the rule's who-may part (a superuser always does). */
export function passes(rule: OperationRule, principal: Principal): boolean {
  if (principal.isSuperuser) return true;
  const { roles, permissions, when } = rule;
  if (!roles && !permissions && !when) return true;
  return Boolean(
    roles?.some((role) => principal.roles?.includes(role)) ||
    permissions?.some((permission) => principal.permissions?.includes(permission)) ||
    when?.(principal),
  );
}

/** The row rule as a condition for this principal; none for a superuser or a rule without rows. */
export function rowCondition(rule: OperationRule | undefined, principal: Principal | null): RowCondition | undefined {
  if (!rule?.rows || principal?.isSuperuser) return undefined;
  if (!principal) return NOTHING;
  return compileRows(rule.rows, principal);
}

/** A condition no row meets: what a caller who may not read a related model sees of it. */
const NOTHING: RowCondition = (qb) => void qb.whereRaw('1 = 0');

function compileRows(rows: RowRule, principal: Principal): RowCondition {
  if (typeof rows === 'function') return (qb, scope) => rows(qb, principal, scope.alias);
  const filters = resolveValues(rows, principal);
  return (qb, scope, build) => applyFilters(qb, filters, scope, build);
}

function resolveValues(rule: Record<string, unknown>, principal: Principal): Filters {
  const filters: Filters = {};
  for (const [key, value] of Object.entries(rule)) {
    if (key === '_or' && value !== null && typeof value === 'object')
      filters[key] = resolveValues(value as Record<string, unknown>, principal);
    else filters[key] = typeof value === 'function' ? (value as (p: Principal) => unknown)(principal) : value;
  }
  return filters;
}

/** The filters with row conditions added (each ANDed to the rest of the WHERE). */
export function withRows(filters: Filters, ...conditions: (RowCondition | undefined)[]): Filters {
  const added = conditions.filter((c): c is RowCondition => c !== undefined);
  if (added.length === 0) return filters;
  const before = (filters as { [ROW_RULES]?: RowCondition[] })[ROW_RULES] ?? [];
  return { ...filters, [ROW_RULES]: [...before, ...added] } as Filters;
}

/** The columns of the model the rule's field set leaves out, for this principal. */
export function excludedFields(
  info: ModelInfo,
  rule: OperationRule | undefined,
  principal: Principal | null,
): ReadonlySet<string> {
  if (!rule?.fields || principal?.isSuperuser) return NO_FIELDS;
  const set: FieldSet = typeof rule.fields === 'function' ? (principal ? rule.fields(principal) : []) : rule.fields;
  if ('except' in set) return new Set(set.except);
  const allowed = new Set(set as readonly string[]);
  return new Set([...info.columns.keys()].filter((column) => !allowed.has(column)));
}

/** A field shown only on the rows `shows` holds of. */
export interface RowMask {
  field: string;
  shows(row: Readonly<Record<string, unknown>>): boolean;
}

/**
 * The rule's fields hidden from this caller on every row: those its field set leaves
 * out and those its per-row rules show on none.
 */
export function hiddenFields(
  info: ModelInfo,
  rule: OperationRule | undefined,
  principal: Principal | null,
): ReadonlySet<string> {
  const excluded = excludedFields(info, rule, principal);
  if (!rule?.rowFields || principal?.isSuperuser) return excluded;
  const never = Object.entries(rule.rowFields)
    .filter(([, grant]) => !principal || grant(principal) === false)
    .map(([field]) => field);
  return never.length === 0 ? excluded : new Set([...excluded, ...never]);
}

/** The rule's per-row fields as they apply to this caller: one mask per field it sees on some rows only. */
export function rowMasks(rule: OperationRule | undefined, principal: Principal | null): readonly RowMask[] {
  if (!rule?.rowFields || !principal || principal.isSuperuser) return [];
  const masks: RowMask[] = [];
  for (const [field, grant] of Object.entries(rule.rowFields)) {
    const shows = grant(principal);
    if (typeof shows === 'function') masks.push({ field, shows });
  }
  return masks;
}

/**
 * The fields this caller does not see on every row: hidden ones and those shown on some
 * rows only. Filtering or sorting on one, or answering it in joined data, would reveal it.
 */
export function unseenFields(
  info: ModelInfo,
  rule: OperationRule | undefined,
  principal: Principal | null,
): ReadonlySet<string> {
  const masks = rowMasks(rule, principal);
  const hidden = hiddenFields(info, rule, principal);
  return masks.length === 0 ? hidden : new Set([...hidden, ...masks.map((mask) => mask.field)]);
}

/** 422 naming each field of the values the caller may not write; nothing is written. */
export function refuseUnwritable(values: Record<string, unknown>, unwritable: ReadonlySet<string>): void {
  if (unwritable.size === 0) return;
  const refused = Object.keys(values).filter((field) => unwritable.has(field));
  if (refused.length === 0) return;
  throw new ValidationError(
    refused.map((field) => ({
      loc: ['body', field],
      msg: `Field '${field}' may not be written by this caller`,
      type: 'forbidden_field',
    })),
  );
}

/**
 * What a principal sees of related models that declare a policy: the read rule's rows
 * (none at all when it may not read them) and the fields it leaves out.
 */
export function relatedAccess(principal: Principal | null): RelatedAccess {
  return {
    rows(info) {
      const rule = policyOf(info.model)?.read;
      if (!rule) return undefined;
      if (!principal || !passes(rule, principal)) return NOTHING;
      return rowCondition(rule, principal);
    },
    hidden(info) {
      return unseenFields(info, policyOf(info.model)?.read, principal);
    },
  };
}

/** How a read treats related models' policies. */
export interface RelatedAccess {
  rows(info: ModelInfo): RowCondition | undefined;
  hidden(info: ModelInfo): ReadonlySet<string>;
}

/** The rule of an operation in a policy (undefined: open). */
export function ruleOf(policy: EffectivePolicy | undefined, op: AccessOperation): OperationRule | undefined {
  return policy?.[op];
}
