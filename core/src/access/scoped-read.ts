import type { Filters } from '../data/filters';
import type { ResolvedJoin } from '../data/joins';
import type { ModelInfo } from '../model/model-info';
import type { Principal } from '../http/principal';
import type { EffectivePolicy } from './effective';
import { authorize, excludedFields, relatedAccess, rowCondition, withRows, type RelatedAccess } from './enforce';

/** A read (or a write's answer) under a policy: its filters, the fields left out, related models' rules. */
export interface ScopedRead {
  filters: Filters;
  hidden: ReadonlySet<string>;
  related: RelatedAccess;
}

/** Authorizes a read or list (401/403) and adds its row rule to the filters. */
export function scopedRead(
  policy: EffectivePolicy | undefined,
  op: 'read' | 'list',
  target: { info: ModelInfo; principal: Principal | null; filters: Filters },
): ScopedRead {
  const rule = policy?.[op];
  authorize(rule, target.principal);
  return {
    filters: withRows(target.filters, rowCondition(rule, target.principal)),
    hidden: excludedFields(target.info, rule, target.principal),
    related: relatedAccess(target.principal),
  };
}

/** The fields a write's answer leaves out: those the read rule hides from this caller. */
export function answerAccess(
  policy: EffectivePolicy | undefined,
  info: ModelInfo,
  principal: Principal | null,
): Omit<ScopedRead, 'filters'> {
  return { hidden: excludedFields(info, policy?.read, principal), related: relatedAccess(principal) };
}

/**
 * Removes the hidden fields from answered rows, and related models' hidden fields from
 * joined rows: nested under the join's key, or flattened as `<prefix><field>`.
 */
export function stripHidden(
  rows: Record<string, unknown>[],
  access: Omit<ScopedRead, 'filters'>,
  joined: { joins: readonly ResolvedJoin[]; nest?: boolean },
): Record<string, unknown>[] {
  const nested = joined.joins
    .map((join) => ({ join, hidden: access.related.hidden(join.link.info) }))
    .filter(({ hidden }) => hidden.size > 0);
  if (access.hidden.size === 0 && nested.length === 0) return rows;
  for (const row of rows) {
    for (const field of access.hidden) delete row[field];
    for (const { join, hidden } of nested) {
      if (!join.many && joined.nest === false) {
        for (const field of hidden) delete row[`${join.prefix}${field}`];
        continue;
      }
      const value = row[join.key];
      const related = Array.isArray(value) ? value : value ? [value] : [];
      for (const item of related as Record<string, unknown>[]) for (const field of hidden) delete item[field];
    }
  }
  return rows;
}
