import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { declaredSoftDeleteFlag } from '../model/declarations';
import { schemaFields, type SchemaLike } from '../schema/fields';
import { applyFilters, relatedScope, type FilterBuild, type FilterScope, type Filters } from './filters';
import { linkOfRelation, type Link } from '../model/link';
import { modelInfo, type ModelClass, type ModelInfo } from '../model/model-info';
import { normalizeRow } from './normalize';
import { orderSql, sortSpecs } from './sort';

/** How related data joins a query. */
export interface JoinConfig {
  /** A relation of the model's `relationMappings`. */
  relation?: string;
  /** The related model; without `relation` or `joinOn`, its one relation is used. */
  model?: ModelClass;
  /** Explicit join: owner column → related column. */
  joinOn?: Record<string, string>;
  /** Prefix of flattened fields; defaults to `<key>_`. */
  joinPrefix?: string;
  schemaToSelect?: SchemaLike;
  /** `inner` keeps only owners that have a (matching) related row. */
  joinType?: 'left' | 'inner';
  /** The key the related data appears under; defaults to the relation name. */
  alias?: string;
  /** Conditions on the related rows. */
  filters?: Filters;
  relationshipType?: 'one-to-one' | 'one-to-many';
  sortColumns?: string | string[];
  sortOrders?: string | string[];
  /** One-to-many only: at most this many related rows per owner. */
  nestedLimit?: number;
}

/** A join checked against the models, ready to run. */
export interface ResolvedJoin {
  key: string;
  prefix: string;
  link: Link;
  many: boolean;
  columns: string[];
  inner: boolean;
  filters?: Filters;
  config: JoinConfig;
}

/** Checks join configurations against the owner model (at startup, not per request). */
export function resolveJoins(owner: ModelInfo, configs: JoinConfig[]): ResolvedJoin[] {
  const keys = new Set<string>();
  return configs.map((config) => {
    if (config.joinType !== undefined && config.joinType !== 'left' && config.joinType !== 'inner') {
      throw new ConfigurationError(
        `Unknown joinType '${String(config.joinType)}' for a join of model ${owner.model.name}: use 'left' or 'inner'`,
      );
    }
    if (
      config.relationshipType !== undefined &&
      config.relationshipType !== 'one-to-one' &&
      config.relationshipType !== 'one-to-many'
    ) {
      throw new ConfigurationError(
        `Unknown relationshipType '${String(config.relationshipType)}' for a join of model ${owner.model.name}: use 'one-to-one' or 'one-to-many'`,
      );
    }
    const { link, name } = linkOf(owner, config);
    const many = config.relationshipType ? config.relationshipType === 'one-to-many' : !link.oneToOne;
    const key = config.alias ?? name;
    if (keys.has(key))
      throw new ConfigurationError(`Two joins of model ${owner.model.name} use the key '${key}'; give one an alias`);
    keys.add(key);
    const columns = config.schemaToSelect ? schemaFields(config.schemaToSelect) : [...link.info.columns.keys()];
    for (const column of columns) {
      if (!link.info.columns.has(column))
        throw new ConfigurationError(
          `Join '${key}' selects '${column}', not a column of model ${link.info.model.name}`,
        );
    }
    if (config.nestedLimit !== undefined && !(Number.isInteger(config.nestedLimit) && config.nestedLimit > 0)) {
      throw new ConfigurationError(`Join '${key}': nestedLimit must be a positive integer`);
    }
    sortSpecs(link.info, config.sortColumns, config.sortOrders); // validates now, not at a request
    return {
      key,
      prefix: config.joinPrefix ?? `${key}_`,
      link,
      many,
      columns,
      inner: config.joinType === 'inner',
      filters: config.filters,
      config,
    };
  });
}

function linkOf(owner: ModelInfo, config: JoinConfig): { link: Link; name: string } {
  if (config.joinOn) {
    if (!config.model) throw new ConfigurationError('A join with joinOn needs its model');
    const info = modelInfo(config.model);
    const ownerCols = Object.keys(config.joinOn);
    const relatedCols = Object.values(config.joinOn);
    ownerCols.forEach((c) => {
      if (!owner.columns.has(c))
        throw new ConfigurationError(`joinOn column '${c}' not found in model ${owner.model.name}`);
    });
    relatedCols.forEach((c) => {
      if (!info.columns.has(c))
        throw new ConfigurationError(`joinOn column '${c}' not found in model ${info.model.name}`);
    });
    const oneToOne = config.relationshipType !== 'one-to-many';
    return { link: { info, ownerCols, relatedCols, oneToOne }, name: config.alias ?? info.table };
  }
  const available = Object.keys(owner.relations);
  if (config.relation) {
    const relation = owner.relations[config.relation];
    if (!relation) {
      throw new ConfigurationError(
        `Invalid relationship names: ${config.relation}. Available relationships of ${owner.model.name}: ${available.join(', ') || 'none'}`,
      );
    }
    return { link: linkOfRelation(relation), name: config.relation };
  }
  if (!config.model)
    throw new ConfigurationError(
      'A join needs a relation, or a model (with joinOn when the model has no relation to it)',
    );
  const matches = available.filter((n) => owner.relations[n].relatedModelClass === config.model);
  if (matches.length !== 1) {
    throw new ConfigurationError(
      `Model ${owner.model.name} has ${matches.length} relations to ${config.model.name}; name one with 'relation' or give joinOn`,
    );
  }
  return { link: linkOfRelation(owner.relations[matches[0]]), name: matches[0] };
}

/** Keeps only owners that have a matching related row (inner joins, one-to-one filters). */
export function restrictOwners(
  qb: Knex.QueryBuilder,
  joins: ResolvedJoin[],
  scope: FilterScope,
  build: FilterBuild,
): void {
  for (const join of joins) {
    const restricts = join.inner || (!join.many && join.filters && Object.keys(join.filters).length > 0);
    if (!restricts) continue;
    qb.whereExists((sub) => {
      const inner = relatedScope(sub, join.link, scope, build);
      excludeDeletedRelated(sub, inner);
      if (join.filters) applyFilters(sub, join.filters, inner, build);
    });
  }
}

/** Leaves out the soft-deleted rows of a related model (its own flag, else `is_deleted`). */
export function excludeDeletedRelated(qb: Knex.QueryBuilder, scope: FilterScope): void {
  // A related model's own @SoftDelete names its flag; without one, the default `is_deleted`.
  const flag = declaredSoftDeleteFlag(scope.info.model) ?? 'is_deleted';
  if (scope.info.columns.get(flag)?.kind === 'boolean') qb.where(`${scope.alias}.${flag}`, false);
}

/** The owner columns a join needs to attach its rows; the caller selects them too. */
export function ownerColumnsNeeded(joins: ResolvedJoin[]): string[] {
  return [...new Set(joins.flatMap((j) => j.link.ownerCols))];
}

/**
 * Loads each join's rows for the given owners with one query per join, and attaches
 * them: nested under the key, or flattened as `<prefix><field>` for one-to-one joins
 * when `nest` is false. One-to-many rows are always a list under the key.
 */
export async function attachJoins(
  rows: Record<string, unknown>[],
  joins: ResolvedJoin[],
  ctx: { build: FilterBuild; nest: boolean },
): Promise<void> {
  if (rows.length === 0) return;
  for (const join of joins) {
    const byOwner = await loadRelated(rows, join, ctx.build);
    for (const row of rows) {
      const related = byOwner.get(ownerKey(join.link.ownerCols.map((c) => row[c]))) ?? [];
      if (join.many) row[join.key] = related;
      else if (ctx.nest) row[join.key] = related[0] ?? null;
      else for (const column of join.columns) row[`${join.prefix}${column}`] = related[0]?.[column] ?? null;
    }
  }
}

function ownerKey(values: unknown[]): string {
  return JSON.stringify(values.map((v) => (v === null || v === undefined ? null : String(v))));
}

async function loadRelated(
  rows: Record<string, unknown>[],
  join: ResolvedJoin,
  build: FilterBuild,
): Promise<Map<string, Record<string, unknown>[]>> {
  const { link } = join;
  const owners = new Map<string, unknown[]>();
  for (const row of rows) {
    const values = link.ownerCols.map((c) => row[c]);
    if (values.every((v) => v !== null && v !== undefined)) owners.set(ownerKey(values), values);
  }
  const result = new Map<string, Record<string, unknown>[]>();
  if (owners.size === 0) return result;

  const db = build.db;
  const alias = build.nextAlias();
  const scope: FilterScope = { info: link.info, alias };
  const ownerRefs = link.through
    ? link.through.ownerCols.map((c) => `${alias}_t.${c}`)
    : link.relatedCols.map((c) => `${alias}.${c}`);
  const qb = db.from(`${link.info.table} as ${alias}`);
  if (link.through) {
    const { table, relatedCols } = link.through;
    qb.join(`${table} as ${alias}_t`, (on) => {
      relatedCols.forEach((col, i) => on.on(`${alias}_t.${col}`, '=', `${alias}.${link.relatedCols[i]}`));
    });
  }
  qb.select(join.columns.map((c) => `${alias}.${c}`));
  ownerRefs.forEach((ref, i) => qb.select(`${ref} as __cs_owner${i}`));
  if (ownerRefs.length === 1)
    qb.whereIn(
      ownerRefs[0],
      [...owners.values()].map((v) => v[0] as Knex.Value),
    );
  else qb.whereIn(ownerRefs, [...owners.values()] as any);
  excludeDeletedRelated(qb, scope);
  if (join.filters) applyFilters(qb, join.filters, scope, build);
  const rule = build.relatedRows?.(link.info);
  if (rule) qb.where((inner) => rule(inner, scope, build));

  const order = orderSql(sortSpecs(link.info, join.config.sortColumns, join.config.sortOrders), alias, {
    info: link.info,
    dialect: build.dialect,
  });
  let query: Knex.QueryBuilder = qb;
  if (join.many && join.config.nestedLimit) {
    // ROW_NUMBER per owner: the limit applies to each owner's list, not to the whole query.
    qb.select(
      db.raw(
        `row_number() over (partition by ${ownerRefs.map(() => '??').join(', ')} order by ${order.sql}) as __cs_rn`,
        [...ownerRefs, ...order.bindings],
      ),
    );
    query = db
      .from(qb.as('__cs_ranked'))
      .select('*')
      .where('__cs_rn', '<=', join.config.nestedLimit)
      .orderBy('__cs_rn');
  } else {
    qb.orderByRaw(order.sql, order.bindings);
  }

  for (const child of (await query) as Record<string, unknown>[]) {
    const key = ownerKey(ownerRefs.map((_, i) => child[`__cs_owner${i}`]));
    ownerRefs.forEach((_, i) => delete child[`__cs_owner${i}`]);
    delete child.__cs_rn;
    normalizeRow(child, link.info);
    const list = result.get(key);
    if (list) list.push(child);
    else result.set(key, [child]);
  }
  return result;
}
