import type { ColumnInfo, ModelInfo } from '../model/model-info';

// The one serializer of stored values: pg answers decimals and bigints as
// strings, SQLite booleans as 0/1 and datetimes as epoch numbers or 'YYYY-MM-DD HH:MM:SS'
// text, MariaDB booleans as 0/1. Every row leaves the data layer in one shape.
const SQL_DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** Converts a stored value to its JS shape: Date, number, boolean, string or parsed JSON. */
export function normalizeValue(value: unknown, column: ColumnInfo): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'integer':
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : Boolean(Number(value));
    case 'datetime':
      return toDate(value);
    case 'date':
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    default:
      return value;
  }
}

function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const text = String(value);
  if (SQL_DATETIME.test(text)) return new Date(`${text.replace(' ', 'T')}Z`);
  return new Date(text);
}

/** Normalizes every known column of a row in place and returns it. */
export function normalizeRow(row: Record<string, unknown>, info: ModelInfo): Record<string, unknown> {
  for (const [key, column] of convertedColumns(info)) {
    if (key in row) row[key] = normalizeValue(row[key], column);
  }
  return row;
}

// Per model, the columns whose stored value may need converting (text comes back as
// text): a list of 20 rows then skips the look-ups for every text column of every row.
const converted = new WeakMap<ModelInfo, [string, ColumnInfo][]>();

function convertedColumns(info: ModelInfo): [string, ColumnInfo][] {
  let columns = converted.get(info);
  if (!columns) {
    columns = [...info.columns].filter(([, column]) => column.kind !== 'string');
    converted.set(info, columns);
  }
  return columns;
}
