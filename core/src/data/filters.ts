import type { Knex } from 'knex';
import { BadRequestError } from '../errors/http-error';
import { linkOfRelation, type Link } from '../model/link';
import type { ModelInfo } from '../model/model-info';
import { applyOperator, OPERATORS, type OperatorContext } from './operators';

/** Filters: `column`, `column__op`, `relation.column__op` keys, and `_or` across keys. */
export type Filters = Record<string, unknown>;

/**
 * The key under which filters carry row conditions of an access policy: a symbol, so no
 * query key can name it, and a list, so several rules are each ANDed to the WHERE.
 */
export const ROW_RULES = Symbol('crudsmith.rowRules');

/** A condition added to a query at a scope (an access policy's row rule, compiled). */
export type RowCondition = (qb: Knex.QueryBuilder, scope: FilterScope, build: FilterBuild) => void;

/** Where filters are applied: the model and the alias its table has in the query. */
export interface FilterScope {
  info: ModelInfo;
  alias: string;
}

/** State of one query build: dialect-specific operator context and an alias counter. */
export interface FilterBuild extends OperatorContext {
  db: Knex;
  /** A fresh table alias (`cs_1`, `cs_2`, ...) for a subquery of this build. */
  nextAlias(): string;
  /** The row condition a related model's policy puts on its rows for this read's caller. */
  relatedRows?: (info: ModelInfo) => RowCondition | undefined;
}

/** Splits `author.name__ilike` into relation path, column and operator. */
export function parseFilterKey(
  key: string,
  customOps: Record<string, unknown>,
): { path: string[]; column: string; op: string } {
  // A request parses the same few keys as the last one: remember them, per operator set.
  let known = parsedKeys.get(customOps);
  if (!known) parsedKeys.set(customOps, (known = new Map()));
  const parsed = known.get(key);
  if (parsed) return { path: [...parsed.path], column: parsed.column, op: parsed.op };
  const fresh = splitFilterKey(key, customOps);
  if (known.size < 1000) known.set(key, { path: [...fresh.path], column: fresh.column, op: fresh.op });
  return fresh;
}

const parsedKeys = new WeakMap<object, Map<string, { path: string[]; column: string; op: string }>>();

function splitFilterKey(
  key: string,
  customOps: Record<string, unknown>,
): { path: string[]; column: string; op: string } {
  let field = key;
  let op = 'eq';
  const at = key.lastIndexOf('__');
  if (at > 0) {
    const suffix = key.slice(at + 2);
    if ((OPERATORS as readonly string[]).includes(suffix) || suffix in customOps) {
      field = key.slice(0, at);
      op = suffix;
    }
  }
  const parts = field.split('.');
  return { path: parts.slice(0, -1), column: parts[parts.length - 1], op };
}

/** Adds every filter to the builder; each key is validated against the model. */
export function applyFilters(qb: Knex.QueryBuilder, filters: Filters, scope: FilterScope, build: FilterBuild): void {
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    applyFilter(qb, [key, value], { scope, build });
  }
  const rules = (filters as { [ROW_RULES]?: RowCondition[] })[ROW_RULES];
  if (rules) for (const rule of rules) qb.where((sub) => rule(sub, scope, build));
}

/** Where a filter applies: the model scope within the query being built. */
interface At {
  scope: FilterScope;
  build: FilterBuild;
  /** The relation path walked so far (`author.`), so a 422 names the whole query key. */
  prefix?: string;
}

function applyFilter(qb: Knex.QueryBuilder, [key, value]: [string, unknown], at: At): void {
  const { scope, build } = at;
  if (key === '_or') {
    if (value === null || typeof value !== 'object') throw new BadRequestError("'_or' takes an object of filters");
    qb.where((sub) => {
      for (const entry of Object.entries(value as Filters)) sub.orWhere((one) => applyFilter(one, entry, at));
    });
    return;
  }
  const { path, column, op } = parseFilterKey(key, build.customFilters);
  if (path.length > 0) {
    applyRelated(qb, { path, rest: key.slice(key.indexOf('.') + 1), value }, at);
    return;
  }
  const info = scope.info.columns.get(column);
  if (!info) {
    const bare = key.lastIndexOf('__') > 0 ? key.slice(0, key.lastIndexOf('__')) : undefined;
    if (bare && scope.info.columns.has(bare)) {
      throw new BadRequestError(`Invalid filter operator '${key.slice(bare.length + 2)}' in '${key}'`);
    }
    throw new BadRequestError(`Invalid filter column '${column}': not found in model ${scope.info.model.name}`);
  }
  const ctx = {
    dialect: build.dialect,
    customFilters: build.customFilters,
    maxListSize: build.maxListSize,
    flags: build.flags,
    loc: [...build.loc, `${at.prefix ?? ''}${key}`],
  };
  applyOperator(qb, { ref: `${scope.alias}.${column}`, column: info, op, value }, ctx);
}

/** A filter on a related model's column: an EXISTS subquery, so parents never repeat. */
function applyRelated(qb: Knex.QueryBuilder, key: { path: string[]; rest: string; value: unknown }, at: At): void {
  const { scope, build } = at;
  const name = key.path[0];
  const relation = scope.info.relations[name];
  if (!relation) {
    const available = Object.keys(scope.info.relations).join(', ') || 'none';
    throw new BadRequestError(
      `Invalid filter relation '${name}': model ${scope.info.model.name} has relations: ${available}`,
    );
  }
  qb.whereExists((sub) => {
    const inner = relatedScope(sub, linkOfRelation(relation), scope, build);
    applyFilter(sub, [key.rest, key.value], { scope: inner, build, prefix: `${at.prefix ?? ''}${name}.` });
  });
}

/**
 * Starts a subquery over a linked table, correlated to the owner row, and answers the
 * scope of the related model inside it. Used by relation filters and by joins.
 */
export function relatedScope(sub: Knex.QueryBuilder, link: Link, owner: FilterScope, build: FilterBuild): FilterScope {
  const alias = build.nextAlias();
  sub.select(build.db.raw('1')).from(`${link.info.table} as ${alias}`);
  if (link.through) {
    const { table, ownerCols, relatedCols } = link.through;
    const through = build.nextAlias();
    sub.join(`${table} as ${through}`, (on) => {
      relatedCols.forEach((col, i) => on.on(`${through}.${col}`, '=', `${alias}.${link.relatedCols[i]}`));
    });
    ownerCols.forEach((col, i) =>
      sub.whereRaw('?? = ??', [`${through}.${col}`, `${owner.alias}.${link.ownerCols[i]}`]),
    );
  } else {
    link.relatedCols.forEach((col, i) =>
      sub.whereRaw('?? = ??', [`${alias}.${col}`, `${owner.alias}.${link.ownerCols[i]}`]),
    );
  }
  const scope = { info: link.info, alias };
  // A related row the caller may not read neither matches a filter nor keeps an owner.
  const rule = build.relatedRows?.(link.info);
  if (rule) sub.where((inner) => rule(inner, scope, build));
  return scope;
}

/** Whether any key, at any depth, asks for a case-insensitive LIKE. */
export function mentionsIlike(filters: unknown): boolean {
  if (filters === null || typeof filters !== 'object' || Array.isArray(filters)) return false;
  for (const [key, value] of Object.entries(filters)) {
    if (key.endsWith('ilike') || mentionsIlike(value)) return true;
  }
  return false;
}
