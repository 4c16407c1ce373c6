import { Model } from 'objection';
import type { AdminContext } from './context';
import { rowIdText } from './ids';
import type { ResolvedView } from './model-view';
import type { AdminPrincipal } from './admin-auth';
import { labelColumn, may, scopeOf } from './view-access';

/** Most children an edit page lists per relation. */
export const CHILDREN_LIMIT = 20;

/** One one-to-many relation of a row, as its edit page lists it. */
export interface ChildList {
  /** The child view's plural label. */
  label: string;
  /** The child rows by label, each with its edit page when the child view allows updates. */
  rows: { label: string; href: string | null }[];
  /** Whether more than CHILDREN_LIMIT rows refer to this one. */
  more: boolean;
}

/**
 * The rows of other views that refer to `row` through a one-to-many relation of the
 * view's model (objection `HasManyRelation` on one column, to a model an admin view
 * shows): one bounded query per relation, at most CHILDREN_LIMIT rows by label.
 */
export async function childLists(
  ctx: AdminContext,
  view: ResolvedView,
  row: Record<string, unknown>,
  principal: AdminPrincipal,
): Promise<ChildList[]> {
  const lists: ChildList[] = [];
  for (const relation of Object.values(view.info.relations)) {
    if (!(relation instanceof Model.HasManyRelation) || relation.ownerProp.cols.length !== 1) continue;
    const child = [...ctx.views.values()].find((v) => v.view.model === relation.relatedModelClass);
    const value = row[relation.ownerProp.cols[0]];
    if (!child || !child.allowed.has('view') || value === null || value === undefined) continue;
    // Under the child's policy, an admin user holding roles sees the children its list rule reaches.
    if (!may(child, 'list', principal)) continue;
    // Through the child's repository, so its soft-deleted rows stay out.
    const { data } = await child.repository.getMulti(ctx.knex, {
      filters: { [relation.relatedProp.cols[0]]: value as string },
      limit: CHILDREN_LIMIT + 1,
      sortColumns: labelColumn(child, principal),
      sortOrders: 'asc',
      returnTotalCount: false,
      ...scopeOf(principal),
    });
    const editable = child.allowed.has('update') && may(child, 'update', principal);
    lists.push({
      label: child.labels.plural,
      rows: data.slice(0, CHILDREN_LIMIT).map((r) => ({
        label: String(r[labelColumn(child, principal)] ?? rowIdText(child, r)),
        href: editable ? `${ctx.mount}/${child.name}/update/${encodeURIComponent(rowIdText(child, r))}` : null,
      })),
      more: data.length > CHILDREN_LIMIT,
    });
  }
  return lists;
}
