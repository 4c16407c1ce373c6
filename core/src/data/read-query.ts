import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { schemaFields, type SchemaLike } from '../schema/fields';
import { dialectOf } from './dialect';
import { applyFilters, mentionsIlike, type FilterBuild, type FilterScope, type Filters } from './filters';
import { reuseCompiledSql } from './compiled-sql';
import { attachJoins, ownerColumnsNeeded, restrictOwners, type ResolvedJoin } from './joins';
import { ensureSqliteLower } from './like';
import type { ModelInfo } from '../model/model-info';
import { normalizeRow } from './normalize';
import type { CustomFilter } from './operators';
import { normalizeCounts, selectCounts, type RelationshipCount } from './relationship-counts';
import { orderItems, type SortSpec } from './sort';

// The read plan. Every read of the repository (one row, a page, a cursor page, a count)
// is built here in the same order, so each gets the same rules:
//   1. `startBuild`: an alias counter and the dialect (SQLite's `ilike` helper first);
//   2. `whereQuery`: the soft-delete flag, the filters (dotted ones as EXISTS), the
//      restriction a joined relation's filter puts on its owners, then `refine` (a keyset);
//   3. `readRows`: the selected columns (plus any a sort or join needs, stripped after),
//      relationship counts, order, window; one statement, through the compiled-SQL cache;
//      then the joined rows are attached, one query per relation;
//   4. `countRows`: the same WHERE, counted, run beside the rows by the caller.

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
  /** `<relation>_count` subqueries to select beside the columns. */
  counts?: RelationshipCount[];
  /** Extra conditions added after the filters (the keyset of a cursor page). */
  refine?: (qb: Knex.QueryBuilder, scope: FilterScope) => void;
}

/**
 * Starts a query build: a fresh alias counter and the dialect's operator context. It is
 * synchronous (no extra tick on the hot path) unless a SQLite `ilike` needs
 * crudsmith_lower registered on the connection first.
 */
export function startBuild(
  db: Knex,
  ctx: ReadContext,
  filters: readonly unknown[],
): FilterBuild | Promise<FilterBuild> {
  const build: FilterBuild & { aliases: number } = {
    db,
    dialect: dialectOf(db),
    customFilters: ctx.customFilters,
    maxListSize: ctx.maxListSize,
    flags: { unicodeLower: false, usesIlike: false },
    loc: ['query'],
    aliases: 0,
    nextAlias,
  };
  if (build.dialect !== 'sqlite' || !filters.some(mentionsIlike)) return build;
  return ensureSqliteLower(db).then((registered) => {
    build.flags.unicodeLower = registered;
    return build;
  });
}

// One shared function rather than a closure per build: reads build no function each.
function nextAlias(this: { aliases: number }): string {
  return `cs_${++this.aliases}`;
}

/** The columns a schema (or the whole model) reads, checked against the model once. */
interface Selected {
  fields: string[];
  /** `table.field` for each field, as the rows query selects them. */
  qualified: string[];
}

// Per model (its ModelInfo), per schema class: the common read selects the same columns
// every time. Lists of field names are not cached, since a caller may change one.
const selections = new WeakMap<ModelInfo, WeakMap<object, Selected>>();

function selected(info: ModelInfo, schema: SchemaLike | undefined): Selected {
  const key: object | undefined = schema === undefined ? info : Array.isArray(schema) ? undefined : schema;
  let byKey = selections.get(info);
  const cached = key && byKey?.get(key);
  if (cached) return cached;
  const fields = schema ? schemaFields(schema) : [...info.columns.keys()];
  for (const column of fields) {
    if (!info.columns.has(column))
      throw new ConfigurationError(`schemaToSelect field '${column}' is not a column of model ${info.model.name}`);
  }
  // Frozen: every read shares it, and the compiled-SQL cache may name it by identity.
  const result = { fields, qualified: Object.freeze(fields.map((c) => `${info.table}.${c}`)) as string[] };
  if (key) {
    if (!byKey) selections.set(info, (byKey = new WeakMap()));
    byKey.set(key, result);
  }
  return result;
}

/** The columns a schema (or the whole model) reads, as they name the row's keys. */
export function selectedFields(info: ModelInfo, schema: SchemaLike | undefined): string[] {
  return selected(info, schema).fields;
}

/**
 * The qualified columns to read: the schema's fields (or all columns) plus those the
 * query needs (`extras`, stripped from the answer). The common case, nothing added, is
 * the cached list.
 */
export function selection(ctx: ReadContext, plan: ReadPlan): { columns: string[]; extras: string[] } {
  const wanted = selected(ctx.info, plan.schemaToSelect);
  let extras: string[] | undefined;
  const needed =
    plan.joins && plan.joins.length > 0
      ? [...(plan.specs ?? []).map((s) => s.column), ...ownerColumnsNeeded(plan.joins)]
      : plan.specs;
  for (const item of needed ?? []) {
    const column = typeof item === 'string' ? item : item.column;
    if (!wanted.fields.includes(column) && !extras?.includes(column)) (extras ??= []).push(column);
  }
  if (!extras) return { columns: wanted.qualified, extras: [] };
  return { columns: [...wanted.qualified, ...extras.map((c) => `${ctx.info.table}.${c}`)], extras };
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
export async function readRows(
  build: FilterBuild,
  ctx: ReadContext,
  plan: ReadPlan,
  base?: Knex.QueryBuilder,
): Promise<ReadResult> {
  const { columns, extras } = selection(ctx, plan);
  const qb = (base ?? whereQuery(build, ctx, plan)).select(columns);
  if (plan.counts && plan.counts.length > 0)
    selectCounts(qb, plan.counts, { info: ctx.info, alias: ctx.info.table }, build);
  if (plan.specs && plan.specs.length > 0)
    qb.orderBy(orderItems(plan.specs, ctx.info.table, { info: ctx.info, dialect: build.dialect }));
  if (plan.offset) qb.offset(plan.offset);
  if (plan.limit !== undefined) qb.limit(plan.limit);
  const rows = (await reuseCompiledSql(qb)) as Record<string, unknown>[];
  for (const row of rows) normalizeRow(row, ctx.info);
  if (plan.counts && plan.counts.length > 0) normalizeCounts(rows, plan.counts);
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
  const [row] = (await reuseCompiledSql(base.clone().count({ count: '*' }))) as { count: unknown }[];
  return Number(row?.count ?? 0);
}
