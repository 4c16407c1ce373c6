import type { Knex } from 'knex';
import { readIndexes, type CatalogueIndex } from './catalogue-indexes';
import { reuseCompiledSql } from './compiled-sql';
import type { FilterBuild } from './filters';
import { attachJoins } from './joins';
import { normalizeRow } from './normalize';
import { countRows, selection, type ReadContext, type ReadPlan, type ReadResult } from './read-query';
import { normalizeCounts, selectCounts } from './relationship-counts';
import { indexOrders } from './served-order';
import { orderItems } from './sort';

// A counted page is two statements, its rows and `count(*)`, run together. When no index
// serves the page's order, the database reads every matching row for each of them: once
// to sort, once to count. Then one statement does both in one pass: the matching rows'
// keys and sort columns are gathered once (a MATERIALIZED CTE: SQLite would otherwise read
// the table again for each mention), counted, and sorted for the page, whose rows are then read by key. Where
// an index serves the order, the page stops after its rows and the two statements stay.
// The choice needs the table's indexes: read from the catalogue by the first such list
// of each database (one statement, once per process), kept for the process's life.

type Known = readonly CatalogueIndex[] | 'unreadable';

// Per knex client (one database and pool), per table: the indexes, or the read under way.
const catalogue = new WeakMap<object, Map<string, Known | Promise<Known>>>();

/**
 * Whether a counted page should be read in one statement: its first sort key is not the
 * primary key and, by the table's indexes, none reads it in order after the request's
 * equality filters (and the soft-delete flag). A promise only while the indexes are read.
 */
export function countsInOnePass(
  db: Knex,
  ctx: ReadContext,
  plan: ReadPlan,
  dialect: string,
): boolean | Promise<boolean> {
  const first = plan.specs?.[0];
  if (!first || ctx.info.idColumns.includes(first.column)) return false;
  // MariaDB merges a CTE into each place it is read, so one statement would still read twice.
  if (dialect !== 'pg' && dialect !== 'sqlite') return false;
  // A transaction's connection is its caller's: the catalogue is read on the pool's own.
  if (db.isTransaction) return false;
  const judge = (indexes: Known) => {
    if (indexes === 'unreadable') return false;
    const fixed = equalityColumns(ctx, plan);
    const sort = { column: first.column, nullable: ctx.info.columns.get(first.column)?.nullable ?? true };
    return !indexes.some((index) => indexOrders(index, sort, fixed, dialect));
  };
  const known = knownIndexes(db, ctx.info.table);
  return known instanceof Promise ? known.then(judge) : judge(known);
}

function knownIndexes(db: Knex, table: string): Known | Promise<Known> {
  let tables = catalogue.get(db.client);
  if (!tables) catalogue.set(db.client, (tables = new Map()));
  const known = tables.get(table);
  if (known !== undefined) return known;
  const reading = readIndexes(db, table).then(
    (indexes): Known => indexes,
    (): Known => 'unreadable',
  );
  tables.set(table, reading);
  void reading.then((indexes) => tables.set(table, indexes));
  return reading;
}

// The columns the request fixes to one value: own `column` / `column__eq` filters with a
// plain value, and the soft-delete flag. Anything else (ranges, lists, `_or`) does not.
function equalityColumns(ctx: ReadContext, plan: ReadPlan): Set<string> {
  const fixed = new Set<string>();
  if (ctx.deletedFlag && !plan.includeDeleted) fixed.add(ctx.deletedFlag.toLowerCase());
  for (const key in plan.filters ?? {}) {
    const value = plan.filters![key];
    if (value === null || typeof value === 'object') continue;
    const column = key.endsWith('__eq') ? key.slice(0, -4) : key;
    if (ctx.info.columns.has(column)) fixed.add(column.toLowerCase());
  }
  return fixed;
}

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
