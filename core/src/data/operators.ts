import type { Knex } from 'knex';
import { BadRequestError, ValidationError } from '../errors/http-error';
import { checkText, coerceValue } from './coerce';
import type { Dialect } from './dialect';
import { storedDatetime } from './sqlite-datetime';
import { checkLikePattern, escapeLike, whereLike } from './like';
import type { ColumnInfo, ColumnKind } from '../model/model-info';

/** Every filter operator (FastCRUD's set; `or` and `not` combine the others). */
export const OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'is',
  'is_not',
  'like',
  'notlike',
  'ilike',
  'notilike',
  'startswith',
  'endswith',
  'contains',
  'match',
  'between',
  'in',
  'not_in',
  'or',
  'not',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** The operators that match text patterns. */
export const TEXT_OPERATORS: ReadonlySet<string> = new Set<Operator>([
  'like',
  'notlike',
  'ilike',
  'notilike',
  'startswith',
  'endswith',
  'contains',
  'match',
]);

// A number, boolean or date holds no text to match: PostgreSQL refuses LIKE and
// to_tsvector on them (a driver error), and the other engines would match the text of
// a cast nobody asked for. JSON stays open: SQLite and MariaDB store it as text.
const NOT_TEXT: ReadonlySet<ColumnKind> = new Set<ColumnKind>(['integer', 'number', 'boolean', 'datetime', 'date']);

/** Whether `op` applies to a column of `kind`: text operators need a text column. */
export function operatorFits(op: string, kind: ColumnKind): boolean {
  return !NOT_TEXT.has(kind) || !TEXT_OPERATORS.has(op);
}

/** The operators `operators: 'all'` gives a column of `kind` (`or`/`not` combine the others). */
export function operatorsFor(kind: ColumnKind | undefined): Operator[] {
  return OPERATORS.filter((op) => op !== 'or' && op !== 'not' && (kind === undefined || operatorFits(op, kind)));
}

/**
 * A custom operator: given the qualified column, answers a function that adds its
 * condition to the query builder.
 */
export type CustomFilter = (column: string) => (qb: Knex.QueryBuilder, value: unknown) => void;

/** Everything an operator needs besides its column and value. */
export interface OperatorContext {
  dialect: Dialect;
  customFilters: Record<string, CustomFilter>;
  /** Most values an `in`/`not_in` list may hold; more is 422. */
  maxListSize: number;
  /** Set when a condition needs crudsmith_lower on SQLite. */
  flags: { unicodeLower: boolean; usesIlike: boolean };
  /** Where a value came from, for 422 messages (`['query', 'price__gte']`). */
  loc: (string | number)[];
}

/** One condition: a qualified column, its description, an operator and a raw value. */
export interface Condition {
  ref: string;
  column: ColumnInfo;
  op: string;
  value: unknown;
}

/** Adds one condition to the builder, coercing the value to the column's type. */
export function applyOperator(qb: Knex.QueryBuilder, cond: Condition, ctx: OperatorContext): void {
  const custom = ctx.customFilters[cond.op];
  if (custom) {
    custom(cond.ref)(qb, cond.value);
    return;
  }
  const { ref, op } = cond;
  if (!operatorFits(op, cond.column.kind)) {
    throw new BadRequestError(
      `The filter operator '${op}' matches text; column '${cond.column.name}' holds ${cond.column.kind} values`,
    );
  }
  const value = coercer(cond, ctx);
  switch (op as Operator) {
    case 'eq':
      return eq(qb, cond, value(cond.value), ctx);
    case 'ne': {
      const v = value(cond.value);
      if (v === null) qb.whereNotNull(ref);
      else if (isBinaryString(cond, ctx)) qb.whereRaw('?? COLLATE utf8mb4_bin <> ?', [ref, v as string]);
      else qb.where(ref, '<>', v as Knex.Value);
      return;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      qb.where(ref, COMPARISONS[op as 'gt'], value(cond.value) as Knex.Value);
      return;
    }
    case 'is':
    case 'is_not':
      return isOperator(qb, cond, op === 'is_not', ctx);
    case 'like':
    case 'notlike':
    case 'ilike':
    case 'notilike':
      return like(qb, cond, checkLikePattern(text(cond, ctx), ctx.loc), ctx);
    case 'startswith':
      return like(qb, { ...cond, op: 'like' }, `${escapeLike(text(cond, ctx))}%`, ctx);
    case 'endswith':
      return like(qb, { ...cond, op: 'like' }, `%${escapeLike(text(cond, ctx))}`, ctx);
    case 'contains':
      return like(qb, { ...cond, op: 'like' }, `%${escapeLike(text(cond, ctx))}%`, ctx);
    case 'match':
      return match(qb, ref, text(cond, ctx), ctx);
    case 'between': {
      const list = toList(cond.value, ctx).map(value);
      if (list.length !== 2) throw ValidationError.of(ctx.loc, 'between takes exactly two values', 'value_error');
      qb.whereBetween(ref, list as [Knex.Value, Knex.Value]);
      return;
    }
    case 'in':
      qb.whereIn(ref, toList(cond.value, ctx).map(value) as Knex.Value[]);
      return;
    case 'not_in':
      qb.whereNotIn(ref, toList(cond.value, ctx).map(value) as Knex.Value[]);
      return;
    case 'or':
      return combine(qb, cond, ctx, 'or');
    case 'not':
      return combine(qb, cond, ctx, 'not');
    default:
      throw new BadRequestError(`Invalid filter operator '${op}' for column '${cond.column.name}'`);
  }
}

const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

// Returned unnamed on purpose: under tsx (esbuild's keepNames) a closure bound to a name
// is wrapped in __name() each time it is made, which costs about a microsecond a filter.
function coercer(cond: Condition, ctx: OperatorContext): (v: unknown) => unknown {
  if (ctx.dialect === 'sqlite' && cond.column.kind === 'datetime')
    return (v) => storedDatetime(coerceValue(v, cond.column, ctx.loc), 'sqlite');
  return (v) => coerceValue(v, cond.column, ctx.loc);
}

// A text operator's value is matched, not coerced, but it meets the same text rule.
function text(cond: Condition, ctx: OperatorContext): string {
  return checkText(String(cond.value), ctx.loc);
}

function isBinaryString(cond: Condition, ctx: OperatorContext): boolean {
  return ctx.dialect === 'mysql' && cond.column.kind === 'string';
}

function eq(qb: Knex.QueryBuilder, cond: Condition, v: unknown, ctx: OperatorContext): void {
  if (v === null) qb.whereNull(cond.ref);
  else if (isBinaryString(cond, ctx)) qb.whereRaw('?? COLLATE utf8mb4_bin = ?', [cond.ref, v as string]);
  else qb.where(cond.ref, v as Knex.Value);
}

function isOperator(qb: Knex.QueryBuilder, cond: Condition, negate: boolean, ctx: OperatorContext): void {
  const raw = cond.value;
  const v =
    raw === null || raw === 'null'
      ? null
      : raw === true || raw === 'true'
        ? true
        : raw === false || raw === 'false'
          ? false
          : undefined;
  if (v === undefined) throw ValidationError.of(ctx.loc, 'Input should be null, true or false', 'value_error');
  if (v === null) {
    if (negate) qb.whereNotNull(cond.ref);
    else qb.whereNull(cond.ref);
  } else if (negate) {
    qb.where((sub) => sub.whereNot(cond.ref, v).orWhereNull(cond.ref));
  } else {
    qb.where(cond.ref, v);
  }
}

function like(qb: Knex.QueryBuilder, cond: Condition, pattern: string, ctx: OperatorContext): void {
  const insensitive = cond.op === 'ilike' || cond.op === 'notilike';
  if (insensitive) ctx.flags.usesIlike = true;
  whereLike(qb, cond.ref, pattern, {
    dialect: ctx.dialect,
    insensitive,
    negate: cond.op === 'notlike' || cond.op === 'notilike',
    unicodeLower: ctx.flags.unicodeLower,
  });
}

// The characters MariaDB's and MySQL's full-text parser reads as operators or quotes.
const FULLTEXT_OPERATORS = /[+\-<>()~*"@]/g;

function match(qb: Knex.QueryBuilder, ref: string, text: string, ctx: OperatorContext): void {
  if (ctx.dialect === 'pg') qb.whereRaw('to_tsvector(??) @@ plainto_tsquery(?)', [ref, text]);
  else if (ctx.dialect === 'mysql') {
    // InnoDB parses some boolean-mode operators even in natural language mode (a lone `*`
    // is a syntax error, `word*` a prefix search); words are all a natural search reads,
    // so the operators go, and text without a word matches nothing, as on PostgreSQL.
    const words = text.replace(FULLTEXT_OPERATORS, ' ').trim();
    if (words === '') qb.whereRaw('1 = 0');
    else qb.whereRaw('MATCH (??) AGAINST (? IN NATURAL LANGUAGE MODE)', [ref, words]);
  } else {
    throw new BadRequestError(
      "The 'match' operator needs full-text search, which SQLite offers only on FTS5 tables; use 'contains' or 'ilike' there",
    );
  }
}

function toList(value: unknown, ctx: OperatorContext): unknown[] {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value === ''
        ? []
        : value.split(',')
      : [value];
  if (list.length > ctx.maxListSize) {
    throw ValidationError.of(ctx.loc, `At most ${ctx.maxListSize} values are allowed`, 'too_long');
  }
  return list;
}

function combine(qb: Knex.QueryBuilder, cond: Condition, ctx: OperatorContext, how: 'or' | 'not'): void {
  if (cond.value === null || typeof cond.value !== 'object' || Array.isArray(cond.value)) {
    throw ValidationError.of(ctx.loc, `'${how}' takes an object of operator to value`, 'value_error');
  }
  const parts = Object.entries(cond.value as Record<string, unknown>).flatMap(([op, value]) => fanOut(op, value, ctx));
  if (how === 'or') {
    qb.where((sub) => {
      for (const [op, value] of parts) sub.orWhere((one) => applyOperator(one, { ...cond, op, value }, ctx));
    });
  } else {
    // Each condition is negated and all must hold: NOT a AND NOT b.
    for (const [op, value] of parts) qb.whereNot((one) => applyOperator(one, { ...cond, op, value }, ctx));
  }
}

/**
 * One condition per value of a list inside `or`/`not`: `{ like: ['A%', 'F%'] }` is
 * like A% and like F%, `{ in: [[1, 2], [3, 4]] }` is in (1, 2) and in (3, 4). A list
 * operator's own list (`{ in: [1, 2] }`) stays one condition.
 */
function fanOut(op: string, value: unknown, ctx: OperatorContext): [string, unknown][] {
  if (!Array.isArray(value)) return [[op, value]];
  const listOp = op === 'in' || op === 'not_in' || op === 'between';
  if (listOp && !value.some(Array.isArray)) return [[op, value]];
  if (listOp && !value.every(Array.isArray))
    throw ValidationError.of(ctx.loc, `'${op}' takes a list, or a list of lists`, 'value_error');
  if (value.length === 0 || value.length > ctx.maxListSize) {
    throw ValidationError.of(ctx.loc, `'${op}' takes between 1 and ${ctx.maxListSize} values`, 'value_error');
  }
  return value.map((one) => [op, one]);
}
