import type { Relation } from 'objection';
import { modelInfo, type ModelClass, type ModelInfo } from './model-info';

/**
 * How rows of a related model attach to an owner row: related.relatedCols equal
 * owner.ownerCols, or, through a join table, through.relatedCols → related.relatedCols
 * and through.ownerCols → owner.ownerCols. Built from objection relations or a joinOn map.
 */
export interface Link {
  info: ModelInfo;
  ownerCols: string[];
  relatedCols: string[];
  through?: { table: string; ownerCols: string[]; relatedCols: string[] };
  /** True when each owner has at most one related row. */
  oneToOne: boolean;
}

/** The link an objection relation describes. */
export function linkOfRelation(relation: Relation): Link {
  // objection's typings omit these run-time members of Relation.
  const r = relation as Relation & { isOneToOne(): boolean; joinTableModelClass?: unknown };
  const link: Link = {
    info: modelInfo(relation.relatedModelClass as ModelClass),
    ownerCols: relation.ownerProp.cols,
    relatedCols: relation.relatedProp.cols,
    oneToOne: r.isOneToOne(),
  };
  if (r.joinTableModelClass) {
    link.through = {
      table: relation.joinTable as string,
      ownerCols: relation.joinTableOwnerProp.cols,
      relatedCols: relation.joinTableRelatedProp.cols,
    };
  }
  return link;
}
