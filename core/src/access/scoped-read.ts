import type { Filters } from '../data/filters';
import type { ResolvedJoin } from '../data/joins';
import type { ModelInfo } from '../model/model-info';
import type { Principal } from '../http/principal';
import type { EffectivePolicy } from './effective';
import {
  authorize,
  hiddenFields,
  relatedAccess,
  rowCondition,
  rowMasks,
  withRows,
  type RelatedAccess,
  type RowMask,
} from './enforce';

/**
 * A read (or a write's answer) under a policy: its filters, the fields left out of every
 * row and of some rows, related models' rules.
 */
export interface ScopedRead {
  filters: Filters;
  hidden: ReadonlySet<string>;
  /** Fields shown on some rows only (none when absent). */
  masks?: readonly RowMask[];
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
    hidden: hiddenFields(target.info, rule, target.principal),
    masks: rowMasks(rule, target.principal),
    related: relatedAccess(target.principal),
  };
}

/** The fields a write's answer leaves out: those the read rule hides from this caller. */
export function answerAccess(
  policy: EffectivePolicy | undefined,
  info: ModelInfo,
  principal: Principal | null,
): Omit<ScopedRead, 'filters'> {
  const rule = policy?.read;
  return {
    hidden: hiddenFields(info, rule, principal),
    masks: rowMasks(rule, principal),
    related: relatedAccess(principal),
  };
}

/**
 * Removes the hidden fields from answered rows, each per-row field from the rows its rule
 * does not show it on, and related models' hidden fields from
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
  const masks = access.masks ?? [];
  if (access.hidden.size === 0 && masks.length === 0 && nested.length === 0) return rows;
  for (const row of rows) {
    // Each mask judges the row as read, before any field of it is removed.
    const masked = masks.filter((mask) => !mask.shows(row));
    for (const { field } of masked) delete row[field];
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
