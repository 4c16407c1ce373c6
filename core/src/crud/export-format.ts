import { ExportFormatError } from '../errors/export-errors';

/** The formats an export answers. */
export const EXPORT_FORMATS = ['csv', 'ndjson', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How one format writes the rows of an export: text before the rows, each row, text after. */
export interface ExportEncoder {
  readonly contentType: string;
  readonly extension: string;
  head(columns: string[]): string;
  row(row: Record<string, unknown>, columns: string[], first: boolean): string;
  readonly tail: string;
}

// A spreadsheet runs a cell that starts with one of these as a formula (`=HYPERLINK(...)`,
// `@SUM(...)`, `-2+3`); a leading quote makes it text again. Tab and CR open the same
// hole in some spreadsheets. Text that already starts with quotes before such a character
// gets one more, so reading a file back removes exactly the one the export added.
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell (RFC 4180): empty for null, ISO 8601 for a date, JSON for an object;
 * text that a spreadsheet would run as a formula (or such text behind quotes) gets a
 * leading `'` (`csvCellText` takes it off again); a cell holding a
 * comma, quote, CR or LF is quoted, its quotes doubled. Numbers stay numbers, negative too.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  let text =
    value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The text of a cell as `csvCell` wrote it (already unquoted by the CSV reader): without
 * the quote that neutralised a formula, so an exported file imports back as it was.
 */
export function csvCellText(cell: string): string {
  return NEUTRALISED.test(cell) ? cell.slice(1) : cell;
}

/** One CSV record: the cells joined by commas, ended by CRLF. */
export function csvLine(cells: unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

const ENCODERS: Record<ExportFormat, ExportEncoder> = {
  csv: {
    contentType: 'text/csv; charset=utf-8; header=present',
    extension: 'csv',
    head: (columns) => csvLine(columns),
    row: (row, columns) => csvLine(columns.map((column) => row[column])),
    tail: '',
  },
  ndjson: {
    contentType: 'application/x-ndjson',
    extension: 'ndjson',
    head: () => '',
    row: (row) => `${json(row)}\n`,
    tail: '',
  },
  json: {
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    head: () => '[',
    row: (row, _columns, first) => `${first ? '' : ','}\n${json(row)}`,
    tail: '\n]\n',
  },
};

/** The encoder of a `format` query value (csv when absent); another value is a 400. */
export function exportEncoder(format: string | string[] | undefined): ExportEncoder {
  const name = format === undefined || format === '' ? 'csv' : format;
  if (typeof name !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(name))
    throw new ExportFormatError(`Invalid export format: use ${EXPORT_FORMATS.join(', ')}`);
  return ENCODERS[name as ExportFormat];
}
