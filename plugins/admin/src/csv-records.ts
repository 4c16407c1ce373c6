import { ValidationError } from '@crudsmith/core';

/** One CSV record and the line of the file it starts on (1 for the header). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/**
 * Reads CSV text as RFC 4180 writes it (and core's export): fields split by commas,
 * records by CRLF or LF, a quoted field may hold commas, quotes (doubled) and line ends.
 * A leading byte-order mark is skipped and blank lines are left out; a quote left open
 * is a 422 naming the line it opened on.
 */
export function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let quoteLine = 0;
  const end = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"' && cell === '') {
      quoted = true;
      quoteLine = line;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && source[i + 1] === '\n') i++;
      end();
      line++;
      start = line;
    } else cell += c;
  }
  if (quoted) throw ValidationError.of(['file', quoteLine], `Line ${quoteLine}: a quoted field is never closed`, 'csv');
  if (cell !== '' || cells.length > 0) end();
  return records;
}
