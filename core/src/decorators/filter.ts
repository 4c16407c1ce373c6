import { OPERATORS } from '../data/operators';
import type { FilterValue } from '../crud/filter-config';
import { defineMetadata, FILTERS_KEY, ownMetadata, type PropertyFilterOptions } from './metadata';

/** The filters a model declares by decorators: query key → default or dependency. */
export function declaredFilters(model: Function): Record<string, FilterValue> {
  return { ...(ownMetadata<Record<string, FilterValue>>(FILTERS_KEY, model) ?? {}) };
}

function record(model: Function, filters: Record<string, FilterValue>): void {
  defineMetadata(FILTERS_KEY, { ...declaredFilters(model), ...filters }, model);
}

/**
 * Declares filters on a model (function twin of `@Filter`): a column with its operators,
 * or a FilterConfig-style mapping of query keys.
 */
export function filter(model: Function, columnOrMapping: string | Record<string, FilterValue>, options: PropertyFilterOptions = {}): void {
  if (typeof columnOrMapping !== 'string') {
    record(model, columnOrMapping);
    return;
  }
  const column = columnOrMapping;
  const ops = options.operators === 'all' ? OPERATORS.filter((op) => op !== 'or' && op !== 'not') : (options.operators ?? []);
  const filters: Record<string, FilterValue> = { [column]: options.default ?? null };
  for (const op of ops) if (op !== 'eq') filters[`${column}__${op}`] = null;
  record(model, filters);
}

/**
 * On a property: makes the column filterable (equality, plus `operators`). On a class:
 * a FilterConfig-style mapping, whose function values scope every request.
 */
export function Filter(arg?: PropertyFilterOptions | Record<string, FilterValue>): ClassDecorator & PropertyDecorator {
  return ((target: object, property?: string | symbol) => {
    if (property === undefined) filter(target as Function, (arg ?? {}) as Record<string, FilterValue>);
    else filter((target as { constructor: Function }).constructor, String(property), (arg ?? {}) as PropertyFilterOptions);
  }) as ClassDecorator & PropertyDecorator;
}
