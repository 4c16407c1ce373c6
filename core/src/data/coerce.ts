import { ValidationError } from '../errors/http-error';
import type { ColumnInfo } from './model-info';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

type Loc = (string | number)[];

function invalid(loc: Loc, msg: string, type: string): never {
  throw ValidationError.of(loc, msg, type);
}

/**
 * Turns a value from a query string or JSON into the JS value its column compares with.
 * Anything that cannot be read as the column's type is a 422, never a 500 from the driver.
 */
export function coerceValue(value: unknown, column: ColumnInfo, loc: Loc): unknown {
  if (value === null) return null;
  switch (column.kind) {
    case 'integer':
      return coerceInteger(value, column, loc);
    case 'number':
      return coerceNumber(value, column, loc);
    case 'boolean':
      return coerceBoolean(value, loc);
    case 'datetime':
      return coerceDatetime(value, loc);
    case 'date':
      if (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))) return value;
      return invalid(loc, 'Input should be a valid date (YYYY-MM-DD)', 'date_parsing');
    case 'json':
      return value;
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return invalid(loc, 'Input should be a valid string', 'string_type');
  }
}

function inRange(n: number, column: ColumnInfo, loc: Loc): number {
  if (column.minimum !== undefined && n < column.minimum) invalid(loc, `Input should be greater than or equal to ${column.minimum}`, 'greater_than_equal');
  if (column.maximum !== undefined && n > column.maximum) invalid(loc, `Input should be less than or equal to ${column.maximum}`, 'less_than_equal');
  return n;
}

function coerceInteger(value: unknown, column: ColumnInfo, loc: Loc): number {
  // Only an optional sign and decimal digits: no exponent, fraction or hex.
  const n = typeof value === 'number' ? value : typeof value === 'string' && INTEGER.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) invalid(loc, 'Input should be a valid integer', 'int_parsing');
  if (!Number.isSafeInteger(n)) invalid(loc, 'Input is out of the safe integer range', 'int_range');
  return inRange(n, column, loc);
}

function coerceNumber(value: unknown, column: ColumnInfo, loc: Loc): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n)) invalid(loc, 'Input should be a valid number', 'float_parsing');
  return inRange(n, column, loc);
}

function coerceBoolean(value: unknown, loc: Loc): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  return invalid(loc, 'Input should be a valid boolean', 'bool_parsing');
}

function coerceDatetime(value: unknown, loc: Loc): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (ISO_DATE.test(text)) return new Date(`${text}T00:00:00Z`);
    if (ISO_DATETIME.test(text)) {
      // A datetime without an offset is read as UTC, the zone every value is stored in.
      const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
      const date = new Date(withZone.replace(' ', 'T'));
      if (!Number.isNaN(date.getTime())) return date;
    }
  }
  return invalid(loc, 'Input should be a valid datetime (ISO 8601)', 'datetime_parsing');
}
