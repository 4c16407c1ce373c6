import type { Knex } from 'knex';
import { dialectOf, type Dialect } from './dialect';

/**
 * The form a datetime is stored in on SQLite: UTC text as SQLite's own `CURRENT_TIMESTAMP`
 * writes it, `YYYY-MM-DD HH:MM:SS`, with `.SSS` only when the milliseconds are not zero.
 * SQLite has no datetime type and compares text as text, so only one form sorts and
 * compares with the rows the database's defaults (and `knex.fn.now()`) write; knex would
 * bind a Date as epoch milliseconds, a number, which SQLite sorts before every text.
 */
export function sqliteDatetime(date: Date): string {
  const iso = date.toISOString();
  // 'YYYY-MM-DDTHH:MM:SS.SSSZ': a year past 9999 never reaches here (coerce refuses it).
  const seconds = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return date.getUTCMilliseconds() === 0 ? seconds : `${seconds}${iso.slice(19, 23)}`;
}

/** A value as the engine compares it with a stored datetime: on SQLite, a Date as its text. */
export function storedDatetime(value: unknown, dialect: Dialect): unknown {
  return dialect === 'sqlite' && value instanceof Date ? sqliteDatetime(value) : value;
}

/** The values of a write, with each Date in its stored form on SQLite (in place). */
export function storedDates<T extends Record<string, unknown>>(values: T, db: Knex): T {
  if (dialectOf(db) !== 'sqlite') return values;
  for (const [key, value] of Object.entries(values))
    if (value instanceof Date) (values as Record<string, unknown>)[key] = sqliteDatetime(value);
  return values;
}
