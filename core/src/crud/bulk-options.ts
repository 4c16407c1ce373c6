import { ConfigurationError } from '../errors/configuration-error';
import { isComposite } from '../data/row-key';
import type { CrudContext } from './crud-context';
import { BULK_OPERATIONS, type BulkOperation, type BulkOptions } from './options';

/** The bulk settings of a router, checked once. */
export interface BulkConfig {
  operations: ReadonlySet<BulkOperation>;
  maxItems: number;
  maxAffected?: number;
  conflictColumns: ReadonlySet<string>;
}

const DEFAULT_MAX_ITEMS = 1000;

/** Resolves the `bulk` option, or undefined when the router offers no bulk operation. */
export function bulkConfig(ctx: CrudContext, option: boolean | BulkOptions | undefined): BulkConfig | undefined {
  if (!option) return undefined;
  const init = option === true ? {} : option;
  const model = ctx.info.model.name;
  for (const op of init.operations ?? []) {
    if (!(BULK_OPERATIONS as readonly string[]).includes(op))
      throw new ConfigurationError(`bulk: unknown operation '${op}' (use ${BULK_OPERATIONS.join(', ')})`);
  }
  const operations = new Set<BulkOperation>(init.operations ?? BULK_OPERATIONS);
  const maxItems = init.maxItems ?? DEFAULT_MAX_ITEMS;
  for (const [name, value] of [
    ['maxItems', maxItems],
    ['maxAffected', init.maxAffected],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
      throw new ConfigurationError(`bulk.${name} must be a positive integer, got ${value}`);
  }
  if (isComposite(ctx.info)) throw new ConfigurationError(`bulk: model ${model} has a composite primary key`);
  if ((operations.has('create') || operations.has('upsert')) && !ctx.createSchema)
    throw new ConfigurationError('bulk: createSchema is required for bulk create and upsert');
  if ((operations.has('update') || operations.has('upsert')) && !ctx.updateSchema)
    throw new ConfigurationError('bulk: updateSchema is required for bulk update and upsert');
  // An upsert's update would reach a row outside the caller's row-level scope.
  if (operations.has('upsert') && ctx.filters.some((filter) => filter.dependency))
    throw new ConfigurationError(`bulk: upsert cannot keep a row-level scope (filterConfig dependency) of ${model}`);
  const conflictColumns = new Set([ctx.info.idColumn, ...(init.conflictColumns ?? [])]);
  for (const column of conflictColumns) {
    if (!ctx.info.columns.has(column))
      throw new ConfigurationError(`bulk.conflictColumns: '${column}' is not a column of model ${model}`);
  }
  return { operations, maxItems, maxAffected: init.maxAffected, conflictColumns };
}
