import { ConfigurationError, ValidationError } from '../errors/http-error';
import type { Dependency, NeutralRequest } from '../http/neutral';
import { coerceValue } from '../data/coerce';
import { parseFilterKey, type Filters } from '../data/filters';
import { linkOfRelation } from '../data/link';
import type { ColumnInfo, ModelInfo } from '../data/model-info';
import { OPERATORS, type CustomFilter } from '../data/operators';
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
  op: string;
  column: ColumnInfo;
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
    if ((PAGINATION_KEYS as readonly string[]).includes(key)) throw new ConfigurationError(`Filter '${key}' clashes with a pagination parameter`);
    const { path, column, op } = parseFilterKey(key, customFilters);
    const owner = path.reduce<ModelInfo | undefined>((at, name) => (at?.relations[name] ? linkOfRelation(at.relations[name]).info : undefined), info);
    const columnInfo = owner?.columns.get(column);
    if (!columnInfo) throw new ConfigurationError(`Invalid filter column '${key}': not found in model ${info.model.name}`);
    if (!(OPERATORS as readonly string[]).includes(op) && !(op in customFilters)) {
      throw new ConfigurationError(`Invalid filter operator '${op}' in '${key}'`);
    }
    if (typeof value === 'function') return { key, op, column: columnInfo, default: null, dependency: value as Dependency<unknown> };
    if (value !== null && !LIST_OPERATORS.has(op) && op !== 'is' && op !== 'is_not') {
      try {
        coerceValue(value, columnInfo, [key]);
      } catch {
        throw new ConfigurationError(`Invalid default value ${JSON.stringify(value)} for filter '${key}': expected a ${columnInfo.kind}`);
      }
    }
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw new ConfigurationError(`Invalid default value for filter '${key}': use null, a string, a number, a boolean or a function`);
    }
    return { key, op, column: columnInfo, default: value };
  });
}

/**
 * The repository filters of one request: dependency values (never from the client),
 * then query values, then defaults. Undeclared query keys are ignored.
 */
export async function requestFilters(declared: DeclaredFilter[], req: NeutralRequest): Promise<Filters> {
  const filters: Filters = {};
  const query = req.query as Query;
  for (const filter of declared) {
    if (filter.dependency) {
      filters[filter.key] = await scopeValue(filter, req);
      continue;
    }
    const raw = query[filter.key];
    if (raw === undefined) {
      if (filter.default !== null) filters[filter.key] = filter.default;
      continue;
    }
    if (Array.isArray(raw) && !LIST_OPERATORS.has(filter.op)) {
      throw ValidationError.of(['query', filter.key], 'Expected a single value', 'value_error');
    }
    filters[filter.key] = Array.isArray(raw) ? raw.flatMap((v) => v.split(',')) : raw;
  }
  return filters;
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
  if (value === undefined) throw new ConfigurationError(`The dependency of filter '${filter.key}' returned undefined; a row-level scope must return a value (or throw, e.g. 401)`);
  return value;
}
