// The admin's CSV reader takes back what core's CSV writer writes, and numbers each
// record by the line it starts on, quoted line ends included.
import { describe, expect, it } from 'vitest';
import { csvLine } from '@crudsmith/core';
import { csvRecords } from '../../../plugins/admin/src/csv-records';

describe('csvRecords', () => {
  it("reads back core's CSV: commas, doubled quotes, CRLF and LF inside quotes", () => {
    const cells = ['a, b', 'say "hi"', 'two\r\nlines', 'one\nline', '', 'plain'];
    const text = `\uFEFF${csvLine(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])}${csvLine(cells)}\n${csvLine(['x', '', '', '', '', 'y'])}`;
    expect(csvRecords(text)).toEqual([
      { line: 1, cells: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] },
      { line: 2, cells },
      // The record above spans lines 2 to 4; a blank line 5 is left out.
      { line: 6, cells: ['x', '', '', '', '', 'y'] },
    ]);
  });

  it('reads a last record without a line end, and refuses (422) a quote never closed, naming its line', () => {
    expect(csvRecords('a,b\n1,2')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
    ]);
    expect(() => csvRecords('a\n"open\nstill')).toThrow(
      expect.objectContaining({
        status: 422,
        detail: [expect.objectContaining({ msg: 'Line 2: a quoted field is never closed' })],
      }),
    );
  });
});
