import { operatorsFor } from '../data/operators';
import { modelInfo, type ModelClass } from '../model/model-info';
import type { FilterValue } from '../crud/filter-config';
import { defineMetadata, FILTERS_KEY, ownMetadata } from '../model/declarations';
import { AllOperators, type FilterDeclaration, type PropertyFilterOptions } from './metadata';

/**
 * The filters a model declares by decorators: query key → default or dependency. A
 * column declared with `operators: 'all'` gets the operators its type takes, so this
 * reads the model's columns: call it once the model is complete (the registry does, at
 * compile).
 */
export function declaredFilters(model: Function): Record<string, FilterValue> {
  const filters: Record<string, FilterValue> = {};
  for (const declaration of ownMetadata<FilterDeclaration[]>(FILTERS_KEY, model) ?? []) {
    if (!(declaration instanceof AllOperators)) {
      Object.assign(filters, declaration);
      continue;
    }
    const { column, defaultValue } = declaration;
    // An unknown column keeps every operator here; the registry then names it as unknown.
    const kind = modelInfo(model as ModelClass).columns.get(column)?.kind;
    Object.assign(filters, columnFilters(column, operatorsFor(kind), defaultValue));
  }
  return filters;
}

function record(model: Function, declaration: FilterDeclaration): void {
  defineMetadata(FILTERS_KEY, [...(ownMetadata<FilterDeclaration[]>(FILTERS_KEY, model) ?? []), declaration], model);
}

// The bare column is the equality filter, so `eq` adds no key of its own.
function columnFilters(column: string, ops: readonly string[], value: FilterValue): Record<string, FilterValue> {
  const filters: Record<string, FilterValue> = { [column]: value };
  for (const op of ops) if (op !== 'eq') filters[`${column}__${op}`] = null;
  return filters;
}

/**
 * Declares filters on a model (function twin of `@Filter`): a column with its operators,
 * or a FilterConfig-style mapping of query keys.
 */
export function filter(
  model: Function,
  columnOrMapping: string | Record<string, FilterValue>,
  options: PropertyFilterOptions = {},
): void {
  if (typeof columnOrMapping !== 'string') {
    record(model, { ...columnOrMapping });
    return;
  }
  const value = options.default ?? null;
  // 'all' waits for the column's type, which a decorator may run before jsonSchema is set.
  if (options.operators === 'all') record(model, new AllOperators(columnOrMapping, value));
  else record(model, columnFilters(columnOrMapping, options.operators ?? [], value));
}

/**
 * On a property: makes the column filterable (equality, plus `operators`). On a class:
 * a FilterConfig-style mapping, whose function values scope every request.
 */
export function Filter(arg?: PropertyFilterOptions | Record<string, FilterValue>): ClassDecorator & PropertyDecorator {
  return ((target: object, property?: string | symbol) => {
    if (property === undefined) filter(target as Function, (arg ?? {}) as Record<string, FilterValue>);
    else
      filter((target as { constructor: Function }).constructor, String(property), (arg ?? {}) as PropertyFilterOptions);
  }) as ClassDecorator & PropertyDecorator;
}
