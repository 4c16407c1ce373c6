import { ValidationError } from '../errors/http-error';
import type { ColumnInfo } from '../model/model-info';
import { textProblem } from '../text';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date, then time, then offset: each part is fixed digits, so the match is one pass.
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?$/i;
/** Longer than any ISO 8601 datetime the pattern reads: refused before the pattern runs. */
const MAX_DATETIME_LENGTH = 40;
/**
 * Stored dates and datetimes lie in years 1000 to 9999: the range MariaDB's DATE and
 * DATETIME hold (mysql2 reads an earlier year back as another one: 0050 as 1950), within
 * what ISO 8601 writes with four digits, what every other engine holds and what a keyset
 * cursor compares. A value whose offset carries it past either end is refused.
 */
const MIN_TIME = Date.parse('1000-01-01T00:00:00Z');
const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

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
      if (typeof value === 'string' && value.length === 10 && calendarDate(ISO_DATE.exec(value)))
        return value < '1000' ? outOfYears(loc) : value;
      return invalid(loc, 'Input should be a valid date (YYYY-MM-DD)', 'date_parsing');
    case 'json':
      return typeof value === 'string' ? checkText(value, loc) : value;
    default:
      if (typeof value === 'string') return checkText(value, loc);
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return invalid(loc, 'Input should be a valid string', 'string_type');
  }
}

function inRange(n: number, column: ColumnInfo, loc: Loc): number {
  if (column.minimum !== undefined && n < column.minimum)
    invalid(loc, `Input should be greater than or equal to ${column.minimum}`, 'greater_than_equal');
  if (column.maximum !== undefined && n > column.maximum)
    invalid(loc, `Input should be less than or equal to ${column.maximum}`, 'less_than_equal');
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
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n)) invalid(loc, 'Input should be a valid number', 'float_parsing');
  return inRange(n, column, loc);
}

/**
 * Refuses (422) a number finer than its column's `multipleOf`, so every engine stores the
 * value sent: PostgreSQL and MariaDB would round it to the column's scale, SQLite keep it.
 */
export function checkStep(n: unknown, column: ColumnInfo, loc: Loc): void {
  const step = column.multipleOf;
  if (step === undefined || typeof n !== 'number') return;
  const steps = n / step;
  // Decimal steps are not exact in binary (0.07 / 0.01 is 7.000000000000001): a relative tolerance.
  if (Math.abs(steps - Math.round(steps)) > 1e-9 * Math.max(1, Math.abs(steps)))
    invalid(loc, `Input should be a multiple of ${step}`, 'multiple_of');
}

function coerceBoolean(value: unknown, loc: Loc): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  return invalid(loc, 'Input should be a valid boolean', 'bool_parsing');
}

/** Refuses text no engine can store (NUL, a lone surrogate) with a 422. */
export function checkText(text: string, loc: Loc): string {
  const problem = textProblem(text);
  return problem ? invalid(loc, problem.msg, problem.type) : text;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// JavaScript's Date rolls 2024-02-30 over to March 1st (and 24:00 to the next day), so
// the fields are checked against the calendar before a Date is made.
function calendarDate(parts: RegExpExecArray | null): boolean {
  if (!parts) return false;
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month !== 2 || day <= 28 || leap;
}

function calendarTime(parts: RegExpExecArray): boolean {
  const [hour, minute, second] = [parts[4], parts[5], parts[6] ?? '0'].map(Number);
  const [offsetHours, offsetMinutes] = [parts[8] ?? '0', parts[9] ?? '0'].map(Number);
  return hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59;
}

function inYears(date: Date): boolean {
  const time = date.getTime();
  return time >= MIN_TIME && time <= MAX_TIME;
}

function coerceDatetime(value: unknown, loc: Loc): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return inYears(value) ? value : outOfYears(loc);
  if (typeof value === 'string' && value.length <= MAX_DATETIME_LENGTH) {
    const text = value.trim();
    const day = ISO_DATE.exec(text);
    if (day) {
      if (calendarDate(day)) {
        const date = new Date(`${text}T00:00:00Z`);
        return inYears(date) ? date : outOfYears(loc);
      }
    } else {
      const parts = ISO_DATETIME.exec(text);
      if (parts && calendarDate(parts) && calendarTime(parts)) {
        // A datetime without an offset is read as UTC, the zone every value is stored in.
        const date = new Date(parts[7] ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`);
        if (!Number.isNaN(date.getTime())) return inYears(date) ? date : outOfYears(loc);
      }
    }
  }
  return invalid(loc, 'Input should be a valid datetime (ISO 8601)', 'datetime_parsing');
}

function outOfYears(loc: Loc): never {
  return invalid(loc, 'Input should be a date between years 1000 and 9999 (UTC)', 'datetime_range');
}
