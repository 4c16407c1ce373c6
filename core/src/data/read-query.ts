import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/http-error';
import { schemaFields, type SchemaLike } from '../schema/fields';
import { dialectOf } from './dialect';
import { applyFilters, mentionsIlike, type FilterBuild, type FilterScope, type Filters } from './filters';
import { attachJoins, ownerColumnsNeeded, restrictOwners, type ResolvedJoin } from './joins';
import { ensureSqliteLower } from './like';
import type { ModelInfo } from './model-info';
import { normalizeRow } from './normalize';
import type { CustomFilter } from './operators';
import { orderSql, type SortSpec } from './sort';

/** What every read shares: the model, its soft-delete flag and custom operators. */
export interface ReadContext {
  info: ModelInfo;
  /** The soft-delete flag column, when the model has one. */
  deletedFlag?: string;
  customFilters: Record<string, CustomFilter>;
  maxListSize: number;
}

/** One read: filters, selection, joins, order and window. */
export interface ReadPlan {
  filters?: Filters;
  schemaToSelect?: SchemaLike;
  includeDeleted?: boolean;
  joins?: ResolvedJoin[];
  nestJoins?: boolean;
  specs?: SortSpec[];
  offset?: number;
  limit?: number;
  /** Extra conditions added after the filters (the keyset of a cursor page). */
  refine?: (qb: Knex.QueryBuilder, scope: FilterScope) => void;
}

/** Starts a query build: a fresh alias counter and the dialect's operator context. */
export async function startBuild(db: Knex, ctx: ReadContext, filters: unknown[]): Promise<FilterBuild> {
  let n = 0;
  const build: FilterBuild = {
    db,
    dialect: dialectOf(db),
    customFilters: ctx.customFilters,
    maxListSize: ctx.maxListSize,
    flags: { unicodeLower: false, usesIlike: false },
    loc: ['query'],
    nextAlias: () => `cs_${++n}`,
  };
  if (build.dialect === 'sqlite' && filters.some(mentionsIlike)) build.flags.unicodeLower = await ensureSqliteLower(db);
  return build;
}

/** The columns to read: the schema's fields (or all columns) plus those the query needs. */
export function selection(ctx: ReadContext, plan: ReadPlan): { columns: string[]; extras: string[] } {
  const wanted = plan.schemaToSelect ? schemaFields(plan.schemaToSelect) : [...ctx.info.columns.keys()];
  for (const column of wanted) {
    if (!ctx.info.columns.has(column)) throw new ConfigurationError(`schemaToSelect field '${column}' is not a column of model ${ctx.info.model.name}`);
  }
  const needed = [...(plan.specs ?? []).map((s) => s.column), ...ownerColumnsNeeded(plan.joins ?? [])];
  const extras = [...new Set(needed.filter((c) => !wanted.includes(c)))];
  return { columns: [...wanted, ...extras], extras };
}

/** The filtered (not yet selected, ordered or windowed) query over the model's table. */
export function whereQuery(build: FilterBuild, ctx: ReadContext, plan: ReadPlan): Knex.QueryBuilder {
  const { table } = ctx.info;
  const scope: FilterScope = { info: ctx.info, alias: table };
  const qb = build.db.from(table);
  if (ctx.deletedFlag && !plan.includeDeleted) qb.where(`${table}.${ctx.deletedFlag}`, false);
  if (plan.filters) applyFilters(qb, plan.filters, scope, build);
  if (plan.joins) restrictOwners(qb, plan.joins, scope, build);
  plan.refine?.(qb, scope);
  return qb;
}

/** Rows read by a plan, and the columns read only for the query's own use. */
export interface ReadResult {
  rows: Record<string, unknown>[];
  extras: string[];
}

/** Runs the rows query of a plan and returns normalized rows with joins attached. */
export async function readRows(build: FilterBuild, ctx: ReadContext, plan: ReadPlan, base?: Knex.QueryBuilder): Promise<ReadResult> {
  const { table } = ctx.info;
  const { columns, extras } = selection(ctx, plan);
  const qb = (base ?? whereQuery(build, ctx, plan)).select(columns.map((c) => `${table}.${c}`));
  if (plan.specs && plan.specs.length > 0) {
    const order = orderSql(plan.specs, table, { info: ctx.info, dialect: build.dialect });
    qb.orderByRaw(order.sql, order.bindings);
  }
  if (plan.offset) qb.offset(plan.offset);
  if (plan.limit !== undefined) qb.limit(plan.limit);
  const rows = (await qb) as Record<string, unknown>[];
  for (const row of rows) normalizeRow(row, ctx.info);
  if (plan.joins && plan.joins.length > 0) await attachJoins(rows, plan.joins, { build, nest: plan.nestJoins ?? true });
  return { rows, extras };
}

/** Removes the columns a query read only for its own use. */
export function stripExtras(rows: Record<string, unknown>[], extras: string[]): Record<string, unknown>[] {
  if (extras.length > 0) for (const row of rows) for (const column of extras) delete row[column];
  return rows;
}

/** Counts the rows a plan's filters match (parents only; joins never multiply them). */
export async function countRows(base: Knex.QueryBuilder): Promise<number> {
  const [row] = (await base.clone().count({ count: '*' })) as { count: unknown }[];
  return Number(row?.count ?? 0);
}
