import { ValidationError, type ValidationIssue } from '../errors/http-error';
import { checkStep, coerceValue } from './coerce';
import type { ModelInfo } from '../model/model-info';

/**
 * Checks that every key of a write names a column and converts each value to what its
 * column stores (an ISO string becomes a Date, and so on). All problems are reported
 * together as one 422.
 */
export function writeValues(info: ModelInfo, data: Record<string, unknown>): Record<string, unknown> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw ValidationError.of(['body'], 'Input should be an object', 'model_type');
  }
  const issues: ValidationIssue[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    const column = info.columns.get(key);
    if (!column) {
      issues.push({
        loc: ['body', key],
        msg: `Unknown field '${key}' for model ${info.model.name}`,
        type: 'extra_forbidden',
      });
      continue;
    }
    try {
      values[key] = coerceValue(value, column, ['body', key]);
      checkStep(values[key], column, ['body', key]);
    } catch (error) {
      if (error instanceof ValidationError && Array.isArray(error.detail)) issues.push(...error.detail);
      else throw error;
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return values;
}
