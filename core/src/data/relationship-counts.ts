import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { relatedScope, type FilterBuild, type FilterScope } from './filters';
import { excludeDeletedRelated } from './joins';
import { linkOfRelation, type Link } from '../model/link';
import type { ModelInfo } from '../model/model-info';

/** One `<relation>_count` a read answers: the key it appears under and how rows relate. */
export interface RelationshipCount {
  key: string;
  link: Link;
}

const resolved = new WeakMap<readonly string[], RelationshipCount[]>();

/**
 * The counts of the named relations, checked against the model (a ConfigurationError
 * names an unknown relation, or a key that is already a column). Cached per list.
 */
export function relationshipCounts(info: ModelInfo, names: readonly string[]): RelationshipCount[] {
  let counts = resolved.get(names);
  if (counts) return counts;
  counts = names.map((name) => {
    const relation = Object.hasOwn(info.relations, name) ? info.relations[name] : undefined;
    if (!relation) {
      throw new ConfigurationError(
        `relationshipCounts: '${name}' is not a relation of model ${info.model.name} (it has: ${Object.keys(info.relations).join(', ') || 'none'})`,
      );
    }
    const key = `${name}_count`;
    if (info.columns.has(key))
      throw new ConfigurationError(`relationshipCounts: '${key}' is already a column of model ${info.model.name}`);
    return { key, link: linkOfRelation(relation) };
  });
  resolved.set(names, counts);
  return counts;
}

/**
 * Selects each count as a correlated subquery of the rows query, so a page and its
 * counts are one statement; soft-deleted related rows are not counted.
 */
export function selectCounts(
  qb: Knex.QueryBuilder,
  counts: RelationshipCount[],
  owner: FilterScope,
  build: FilterBuild,
): void {
  for (const count of counts) {
    const sub = build.db.queryBuilder();
    const inner = relatedScope(sub, count.link, owner, build);
    excludeDeletedRelated(sub, inner);
    qb.select(sub.clearSelect().count('*').as(count.key));
  }
}

/** Reads each count as a number (PostgreSQL answers a bigint count as text). */
export function normalizeCounts(rows: Record<string, unknown>[], counts: RelationshipCount[]): void {
  for (const row of rows) for (const count of counts) row[count.key] = Number(row[count.key] ?? 0);
}
