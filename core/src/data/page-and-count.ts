import type { Knex } from 'knex';
import { reuseCompiledSql } from './compiled-sql';
import type { FilterBuild } from './filters';
import { attachJoins } from './joins';
import { normalizeRow } from './normalize';
import { countRows, selection, type ReadContext, type ReadPlan, type ReadResult } from './read-query';
import { normalizeCounts, selectCounts } from './relationship-counts';
import { orderItems } from './sort';

// A counted page is two statements, its rows and `count(*)`, run together. When no index
// serves the page's order, the database reads every matching row for each of them: once
// to sort, once to count. Then one statement does both in one pass: the matching rows'
// keys and sort columns are gathered once (a MATERIALIZED CTE: SQLite would otherwise read
// the table again for each mention), counted, and sorted for the page, whose rows are then read by key. Where
// an index serves the order, the page stops after its rows and the two statements stay.
// The choice is `indexedOrder`'s (list-order.ts).

/**
 * A page and the count of every row its filters match, in one statement (see above). A
 * page past the last row reads no row and so no count: the count is then read alone.
 */
export async function readPageAndCount(
  build: FilterBuild,
  ctx: ReadContext,
  plan: ReadPlan,
  base: Knex.QueryBuilder,
): Promise<ReadResult & { total: number }> {
  const { info } = ctx;
  const { table } = info;
  const specs = plan.specs ?? [];
  const dialect = { info, dialect: build.dialect };
  const matching = build.nextAlias();
  const page = build.nextAlias();
  const total = build.nextAlias();
  const keys = [...new Set([...info.idColumns, ...specs.map((spec) => spec.column)])];
  const { db } = build;

  const window = db
    .from(matching)
    .select(keys)
    .orderBy(orderItems(specs, matching, dialect));
  if (plan.offset) window.offset(plan.offset);
  if (plan.limit !== undefined) window.limit(plan.limit);
  const { columns, extras } = selection(ctx, plan);
  const qb = db
    .withMaterialized(matching, base.clone().select(keys.map((column) => `${table}.${column}`)))
    .from(table)
    .join(window.as(page), (on) => {
      for (const key of info.idColumns) on.on(`${page}.${key}`, '=', `${table}.${key}`);
    })
    .select(columns)
    .select(db.raw('(select count(*) from ??) as ??', [matching, total]));
  if (plan.counts && plan.counts.length > 0) selectCounts(qb, plan.counts, { info, alias: table }, build);
  qb.orderBy(orderItems(specs, page, dialect));

  const rows = (await reuseCompiledSql(qb)) as Record<string, unknown>[];
  const counted = rows.length > 0 ? Number(rows[0][total]) : plan.offset ? await countRows(base) : 0;
  for (const row of rows) {
    delete row[total];
    normalizeRow(row, info);
  }
  if (plan.counts && plan.counts.length > 0) normalizeCounts(rows, plan.counts);
  if (plan.joins && plan.joins.length > 0) await attachJoins(rows, plan.joins, { build, nest: plan.nestJoins ?? true });
  return { rows, extras, total: counted };
}
