import type { ColumnInfo } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

/** A value as a page shows it, by its column's type; templates render it with the `cell` mixin. */
export interface Shown {
  kind: 'empty' | 'bool' | 'enum' | 'num' | 'date' | 'text' | 'json' | 'ref';
  /** What the cell reads. */
  text: string;
  /** The whole value, on demand, when `text` is cut (long text, JSON pretty-printed). */
  full?: string;
  /** The exact instant of a date-time, shown on hover and localised by the browser. */
  iso?: string;
  yes?: boolean;
}

/** Characters of a text cell before it is cut. */
export const CUT_AT = 60;

/**
 * A stored date-time as a Date: a Date, epoch milliseconds (SQLite rows crudsmith wrote),
 * or text (ISO 8601, or SQLite's `CURRENT_TIMESTAMP`, which is UTC without a zone).
 */
export function toDate(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value !== 'string') return null;
  if (/^\d{10,}$/.test(value)) return new Date(Number(value));
  const text = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)
    ? `${value.replace(' ', 'T')}Z`
    : value;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A stored boolean (SQLite and MariaDB answer 1 and 0 to raw queries). */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

/** The date-time and number formats of one locale (built once, kept). */
interface Formats {
  datetime: Intl.DateTimeFormat;
  number: Intl.NumberFormat;
  integer: Intl.NumberFormat;
}

// By locale; the locales are the admin's catalogues' own (`language.tag`), so the cache stays small.
const formats = new Map<string, Formats>();

/** The formats of `locale`; a tag Intl refuses (an app's catalogue's typo) formats as British English. */
function formatsOf(locale: string): Formats {
  let found = formats.get(locale);
  if (!found) {
    let known = 'en-GB';
    try {
      known = Intl.DateTimeFormat.supportedLocalesOf([locale])[0] ?? known;
    } catch {
      // A malformed tag: RangeError.
    }
    found = {
      // UTC on the server, so every page says the same; the admin's script rewrites it in the reader's zone.
      datetime: new Intl.DateTimeFormat(known, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }),
      number: new Intl.NumberFormat(known, { maximumFractionDigits: 20 }),
      // Integer columns hold ids, years and codes as often as amounts: never "2,026".
      integer: new Intl.NumberFormat(known, { maximumFractionDigits: 0, useGrouping: false }),
    };
    formats.set(locale, found);
  }
  return found;
}

/**
 * A stored number in the locale's form ("1,234.5", "1.234,5"; an integer column's without
 * grouping); an integer past a double's precision keeps every digit.
 */
function formatNumber(value: unknown, locale: string, integer: boolean): string {
  const number = integer ? formatsOf(locale).integer : formatsOf(locale).number;
  if (typeof value === 'bigint') return number.format(value);
  // Drivers answer BIGINT and DECIMAL columns as text.
  if (typeof value === 'string' && /^-?\d{16,}$/.test(value)) return number.format(BigInt(value));
  const n = Number(value);
  return Number.isFinite(n) ? number.format(n) : String(value);
}

function cut(text: string, kind: 'text' | 'json', full = text): Shown {
  return [...text].length > CUT_AT ? { kind, text: `${[...text].slice(0, CUT_AT).join('')}…`, full } : { kind, text };
}

/**
 * Shows a value by its column's type, dates and numbers for the reader's `locale` (the page's `language.tag`): the same
 * on the list, the trash, the forms' echoes and the event log.
 */
export function showValue(value: unknown, column: ColumnInfo | undefined, isEnum = false, locale = 'en-GB'): Shown {
  if (value === null || value === undefined || value === '') return { kind: 'empty', text: '' };
  switch (column?.kind) {
    case 'boolean': {
      const yes = toBoolean(value);
      return { kind: 'bool', yes, text: yes ? 'Yes' : 'No' };
    }
    case 'datetime': {
      const date = toDate(value);
      return date
        ? { kind: 'date', iso: date.toISOString(), text: `${formatsOf(locale).datetime.format(date)} UTC` }
        : cut(String(value), 'text');
    }
    case 'date': {
      const date = value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);
      return { kind: 'date', text: date, iso: date };
    }
    case 'integer':
    case 'number':
      return { kind: 'num', text: formatNumber(value, locale, column.kind === 'integer') };
    default:
      break;
  }
  if (isEnum) return { kind: 'enum', text: String(value) };
  if (typeof value === 'object' || column?.kind === 'json') {
    let parsed = value;
    if (typeof value === 'string') {
      try {
        parsed = JSON.parse(value);
      } catch {
        return cut(value, 'text');
      }
    }
    return cut(JSON.stringify(parsed), 'json', JSON.stringify(parsed, null, 2));
  }
  if (value instanceof Date) return showValue(value, { name: '', kind: 'datetime', nullable: true }, false, locale);
  return cut(String(value), 'text');
}

/**
 * The cells of a row for the given columns for the reader's `locale`; a foreign key with a
 * known label in `references` shows the label, its key on hover.
 */
export function rowCells(
  view: Pick<ResolvedView, 'info' | 'enums'>,
  row: Record<string, unknown>,
  columns: readonly string[],
  { references, locale = 'en-GB' }: { references?: Map<string, Map<string, string>>; locale?: string } = {},
): Shown[] {
  return columns.map((name) => {
    const value = row[name];
    const label = value === null || value === undefined ? undefined : references?.get(name)?.get(String(value));
    if (label !== undefined) return { kind: 'ref', text: label, full: `#${String(value)}` };
    return showValue(value, view.info.columns.get(name), view.enums.has(name), locale);
  });
}

/**
 * The list's column heads: name, label, whether its values are numbers (aligned right), and
 * whether the list searches and sorts on it (not on a column shown on some rows only).
 */
export function columnHeads(view: ResolvedView): { name: string; label: string; num: boolean; queried: boolean }[] {
  // A foreign key shows its row's label, text: only plain numbers align right.
  const numeric = (c: ColumnInfo) => (c.kind === 'integer' || c.kind === 'number') && !view.view.references?.[c.name];
  return view.listColumns.map((c) => ({
    name: c.name,
    label: view.labels.columns.get(c.name) ?? c.name,
    num: numeric(c),
    queried: !view.rowOnly?.has(c.name),
  }));
}
