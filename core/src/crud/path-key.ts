import { ConfigurationError } from '../errors/configuration-error';
import { NotFoundError, ValidationError } from '../errors/http-error';
import type { NeutralRequest } from '../http/neutral';
import type { ModelInfo } from '../model/model-info';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The path parameters that name a row: `id` for a single-column key; for a composite key,
 * one segment per key column, named after it, in the model's `idColumn` order
 * (`/{path}/{order_id}/{line_no}`).
 */
export function keyParams(info: ModelInfo): string[] {
  if (info.idColumns.length === 1) return ['id'];
  for (const column of info.idColumns) {
    if (!PARAM_NAME.test(column))
      throw new ConfigurationError(
        `Model ${info.model.name}: key column '${column}' cannot name a path parameter (letters, digits and _ only)`,
      );
  }
  return [...info.idColumns];
}

/** The path segments of a row's key: `:id`, or `:a/:b` for a composite key. */
export function keyPath(info: ModelInfo): string {
  return keyParams(info)
    .map((name) => `:${name}`)
    .join('/');
}

/**
 * The equality filters of the key named by the path. A malformed integer is a 422 (thrown
 * at once); one out of the column's range names no row (404).
 */
export function pathKeyFilters(info: ModelInfo, req: NeutralRequest): Record<string, unknown> {
  const params = keyParams(info);
  const filters: Record<string, unknown> = {};
  info.idColumns.forEach((column, i) => {
    const name = params[i];
    const raw = req.params[name];
    const described = info.columns.get(column);
    if (described?.kind !== 'integer') {
      filters[column] = raw;
      return;
    }
    if (!/^[+-]?\d+$/.test(raw ?? ''))
      throw ValidationError.of(['path', name], 'Input should be a valid integer', 'int_parsing');
    const id = Number(raw);
    const { minimum = -Number.MAX_SAFE_INTEGER, maximum = Number.MAX_SAFE_INTEGER } = described;
    if (!Number.isSafeInteger(id) || id < minimum || id > maximum) throw new NotFoundError('Item not found');
    filters[column] = id;
  });
  return filters;
}
