import type { AdminContext } from './context';
import type { ResolvedView } from './model-view';

/**
 * The labels of the rows a page's foreign keys point to: for each `references` column the
 * list shows, one `IN` query on the target view's table for the values on this page (never
 * one query per row). Answers column → key text → label.
 */
export async function referenceLabels(
  ctx: AdminContext,
  view: ResolvedView,
  rows: Record<string, unknown>[],
): Promise<Map<string, Map<string, string>>> {
  const labels = new Map<string, Map<string, string>>();
  for (const [column, targetName] of Object.entries(view.view.references ?? {})) {
    if (!view.listColumns.some((c) => c.name === column)) continue;
    const values = [...new Set(rows.map((row) => row[column]).filter((v) => v !== null && v !== undefined))];
    const byKey = new Map<string, string>();
    labels.set(column, byKey);
    if (values.length === 0) continue;
    const target = ctx.views.get(targetName)!;
    const found = await ctx
      .knex(target.info.table)
      .whereIn(target.info.idColumn, values as string[])
      .select(target.info.idColumn, target.displayField);
    for (const row of found as Record<string, unknown>[])
      byKey.set(String(row[target.info.idColumn]), String(row[target.displayField] ?? ''));
  }
  return labels;
}
