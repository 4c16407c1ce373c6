import { ConfigurationError } from '../errors/configuration-error';
import { BadRequestError, ValidationError } from '../errors/http-error';
import type { Dependency, NeutralRequest } from '../http/neutral';
import { coerceValue } from '../data/coerce';
import { parseFilterKey, type Filters } from '../data/filters';
import { linkOfRelation } from '../model/link';
import type { ColumnInfo, ModelInfo } from '../model/model-info';
import { operatorFits, OPERATORS, type CustomFilter } from '../data/operators';
import { PAGINATION_KEYS } from './list-query';
import type { Query } from './query-values';

/**
 * A filter's value in a FilterConfig: null (optional, nothing by default), a scalar
 * default, or a dependency resolved on every request that the client cannot override
 * (row-level scoping).
 */
export type FilterValue = null | string | number | boolean | Dependency<unknown>;

/** Filters of a read-many endpoint: query key (`price__gte`, `author.name`) → value. */
export class FilterConfig {
  readonly filters: Record<string, FilterValue>;

  constructor(filters: Record<string, FilterValue>) {
    this.filters = { ...filters };
  }
}

/** One declared filter, checked against the model. */
export interface DeclaredFilter {
  key: string;
  /** The column the key filters, with its relation path: `author.name` for `author.name__ilike`. */
  field: string;
  op: string;
  column: ColumnInfo;
  /** The model whose column it is (the related one for a dotted key). */
  owner: ModelInfo;
  default: unknown;
  dependency?: Dependency<unknown>;
}

const LIST_OPERATORS = new Set(['in', 'not_in', 'between']);

/**
 * Checks every filter key against the model (columns, relations, operators) and every
 * default against its column type, at startup.
 */
export function declareFilters(
  info: ModelInfo,
  config: FilterConfig | Record<string, FilterValue> | undefined,
  customFilters: Record<string, CustomFilter> = {},
): DeclaredFilter[] {
  const entries = Object.entries(config instanceof FilterConfig ? config.filters : (config ?? {}));
  return entries.map(([key, value]) => {
    if ((PAGINATION_KEYS as readonly string[]).includes(key))
      throw new ConfigurationError(`Filter '${key}' clashes with a pagination parameter`);
    const { path, column, op } = parseFilterKey(key, customFilters);
    const owner = path.reduce<ModelInfo | undefined>(
      (at, name) => (at?.relations[name] ? linkOfRelation(at.relations[name]).info : undefined),
      info,
    );
    const columnInfo = owner?.columns.get(column);
    if (!columnInfo) {
      unknownOperator(key, owner, customFilters);
      throw new ConfigurationError(`Invalid filter column '${key}': not found in model ${info.model.name}`);
    }
    if (!(op in customFilters) && !operatorFits(op, columnInfo.kind)) {
      const of = owner === info ? '' : ` of model ${owner!.model.name}`;
      throw new ConfigurationError(
        `Invalid filter '${key}' on model ${info.model.name}: the operator '${op}' matches text, and column '${column}'${of} holds ${columnInfo.kind} values`,
      );
    }
    const field = [...path, column].join('.');
    const declared = { key, field, op, column: columnInfo, owner: owner! };
    if (typeof value === 'function') return { ...declared, default: null, dependency: value as Dependency<unknown> };
    if (value !== null && !LIST_OPERATORS.has(op) && op !== 'is' && op !== 'is_not') {
      try {
        coerceValue(value, columnInfo, [key]);
      } catch {
        throw new ConfigurationError(
          `Invalid default value ${JSON.stringify(value)} for filter '${key}': expected a ${columnInfo.kind}`,
        );
      }
    }
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw new ConfigurationError(
        `Invalid default value for filter '${key}': use null, a string, a number, a boolean or a function`,
      );
    }
    return { ...declared, default: value };
  });
}

// A key splits at its last `__` only before a known operator, so `price__bogus` reads as
// a column named `price__bogus`: when the part before `__` is a column, the operator is
// what is wrong.
function unknownOperator(key: string, owner: ModelInfo | undefined, customFilters: Record<string, CustomFilter>): void {
  const at = key.lastIndexOf('__');
  const column = key.slice(key.lastIndexOf('.', at) + 1, at);
  if (at <= 0 || !owner?.columns.has(column)) return;
  const custom = Object.keys(customFilters);
  throw new ConfigurationError(
    `Unknown filter operator '${key.slice(at + 2)}' in filter '${key}': the operators are ${OPERATORS.join(', ')}${custom.length > 0 ? `, and the custom ${custom.join(', ')}` : ''}`,
  );
}

/**
 * The repository filters of one request: dependency values (never from the client),
 * then query values, then defaults. A query key naming no declared filter is left to the
 * app; one naming a declared column with an operator it does not allow is a 400.
 */
export async function requestFilters(
  declared: DeclaredFilter[],
  req: NeutralRequest,
  info?: ModelInfo,
): Promise<Filters> {
  const filters: Filters = {};
  const query = req.query as Query;
  const keys = queryKeysOf(declared);
  for (const key of Object.keys(query)) {
    if (keys.known.has(key) || query[key] === undefined) continue;
    refuseMisfit(key, keys);
    if (info) refuseRelated(key, info);
  }
  for (const filter of declared) {
    if (filter.dependency) {
      filters[filter.key] = await scopeValue(filter, req);
      continue;
    }
    const key = keyGiven(filter, query, keys.aliases.get(filter));
    const raw = query[key];
    if (raw === undefined) {
      if (filter.default !== null) filters[filter.key] = filter.default;
      continue;
    }
    if (Array.isArray(raw) && !LIST_OPERATORS.has(filter.op)) {
      throw ValidationError.of(['query', key], 'Expected a single value', 'value_error');
    }
    // Under the key the client used, so a 422 names that key.
    filters[key] = Array.isArray(raw) ? raw.flatMap((v) => v.split(',')) : raw;
  }
  return filters;
}

/** How query keys meet the declared filters, worked out once per endpoint. */
interface QueryKeys {
  /** Keys that are taken as they are: every declared key, its alias, and pagination's. */
  known: Set<string>;
  /** The other spelling of an equality filter: `name__eq` for `name`, and `name` for `name__eq`. */
  aliases: Map<DeclaredFilter, string>;
  /** Each client-filtered column (`author.name`): the operators it allows, and its model. */
  fields: Map<string, { ops: string[]; owner: ModelInfo }>;
}

const queryKeys = new WeakMap<DeclaredFilter[], QueryKeys>();

function queryKeysOf(declared: DeclaredFilter[]): QueryKeys {
  let keys = queryKeys.get(declared);
  if (keys) return keys;
  keys = { known: new Set<string>(PAGINATION_KEYS), aliases: new Map(), fields: new Map() };
  for (const filter of declared) keys.known.add(filter.key);
  for (const filter of declared) {
    // A dependency-valued filter takes nothing from the query: its column is not the client's.
    if (filter.dependency) continue;
    const field = keys.fields.get(filter.field) ?? { ops: [], owner: filter.owner };
    if (!field.ops.includes(filter.op)) field.ops.push(filter.op);
    keys.fields.set(filter.field, field);
    if (filter.op !== 'eq') continue;
    const alias = filter.key === filter.field ? `${filter.field}__eq` : filter.field;
    if (!keys.known.has(alias)) {
      keys.known.add(alias);
      keys.aliases.set(filter, alias);
    }
  }
  queryKeys.set(declared, keys);
  return keys;
}

/** The query key that carries the filter's value: its own, or its alias; both is a 422. */
function keyGiven(filter: DeclaredFilter, query: Query, alias: string | undefined): string {
  if (alias === undefined || query[alias] === undefined) return filter.key;
  if (query[filter.key] !== undefined) {
    throw ValidationError.of(
      ['query', alias],
      `'${filter.key}' and '${alias}' are the same filter: give one of them`,
      'value_error',
    );
  }
  return alias;
}

/**
 * Throws a 400 when an unknown query key names a client-filtered column, bare (equality)
 * or with an operator after its last `__`: answering the whole table instead would be the
 * opposite of what was asked. A key that is itself a column (`size__cm`) stays the app's.
 */
function refuseMisfit(key: string, keys: QueryKeys): void {
  let field = key;
  let op = 'eq';
  if (!keys.fields.has(key)) {
    const at = key.lastIndexOf('__');
    if (at <= 0) return;
    field = key.slice(0, at);
    op = key.slice(at + 2);
    // A dot after the last `__` belongs to a relation name (`a__b.c`), not an operator.
    if (op.includes('.')) return;
  }
  const declared = keys.fields.get(field);
  if (!declared) return;
  // Filter keys split at the last `__` only before a known operator; otherwise the whole
  // key names a column, as the repository reads it.
  if (
    op !== 'eq' &&
    !(OPERATORS as readonly string[]).includes(op) &&
    declared.owner.columns.has(key.slice(key.lastIndexOf('.') + 1))
  )
    return;
  throw new BadRequestError(
    `Filter operator '${op}' is not allowed in '${key}': '${field}' allows ${declared.ops.join(', ')}`,
  );
}

/**
 * Throws a 400 for an undeclared key that starts with a relation of the model
 * (`author.email`): a client reaches a related model only through the filters the
 * endpoint declares, and the same answer for a hidden column and a missing one tells
 * nothing about either. Ignoring the key instead would answer rows it did not ask for.
 */
function refuseRelated(key: string, info: ModelInfo): void {
  const dot = key.indexOf('.');
  if (dot <= 0 || !Object.hasOwn(info.relations, key.slice(0, dot))) return;
  throw new BadRequestError(
    `Invalid filter '${key.slice(0, 100)}': this endpoint filters ${info.model.name} on no such related column`,
  );
}

/** The dependency-valued filters: row-level scope that applies to reads and writes by id too. */
export async function scopeFilters(declared: DeclaredFilter[], req: NeutralRequest): Promise<Filters> {
  const filters: Filters = {};
  for (const filter of declared) if (filter.dependency) filters[filter.key] = await scopeValue(filter, req);
  return filters;
}

// A scope that resolves to undefined would otherwise drop the WHERE clause and widen the
// read to every row: fail closed (a logged 500) instead. null stays a real value (IS NULL).
async function scopeValue(filter: DeclaredFilter, req: NeutralRequest): Promise<unknown> {
  const value = await req.resolve(filter.dependency!);
  if (value === undefined)
    throw new ConfigurationError(
      `The dependency of filter '${filter.key}' returned undefined; a row-level scope must return a value (or throw, e.g. 401)`,
    );
  return value;
}
