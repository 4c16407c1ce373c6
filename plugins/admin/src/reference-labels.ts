import type { AdminPrincipal } from './admin-auth';
import type { AdminContext } from './context';
import type { ResolvedView } from './model-view';
import { labelColumn, may, scopeOf } from './view-access';

/**
 * The labels of the rows a page's foreign keys point to: for each `references` column the
 * list shows, one `IN` query on the target view's table for the values on this page (never
 * one query per row). Answers column → key text → label. For an admin user holding roles,
 * through the target's repository under its list rule: a row it may not see has no label.
 */
export async function referenceLabels(
  ctx: AdminContext,
  view: ResolvedView,
  rows: Record<string, unknown>[],
  principal: AdminPrincipal,
): Promise<Map<string, Map<string, string>>> {
  const labels = new Map<string, Map<string, string>>();
  for (const [column, targetName] of Object.entries(view.view.references ?? {})) {
    if (!view.listColumns.some((c) => c.name === column)) continue;
    const values = [...new Set(rows.map((row) => row[column]).filter((v) => v !== null && v !== undefined))];
    const byKey = new Map<string, string>();
    labels.set(column, byKey);
    if (values.length === 0) continue;
    const target = ctx.views.get(targetName)!;
    const scope = scopeOf(principal);
    if (scope.principal) {
      if (!may(target, 'list', principal)) continue;
      const label = labelColumn(target, principal);
      const seen = await target.repository.select(ctx.knex, { [`${target.info.idColumn}__in`]: values }, scope);
      for (const row of seen) byKey.set(String(row[target.info.idColumn]), String(row[label] ?? ''));
      continue;
    }
    const found = await ctx
      .knex(target.info.table)
      .whereIn(target.info.idColumn, values as string[])
      .select(target.info.idColumn, target.displayField);
    for (const row of found as Record<string, unknown>[])
      byKey.set(String(row[target.info.idColumn]), String(row[target.displayField] ?? ''));
  }
  return labels;
}
