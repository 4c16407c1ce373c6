/** One printed column: its heading and whether its cells align right (numbers). */
export interface Column<Row> {
  title: string;
  value: (row: Row) => string;
  right?: boolean;
}

/** Formats rows as a plain-text table with a heading line, columns two spaces apart. */
export function formatTable<Row>(columns: Column<Row>[], rows: Row[]): string {
  const cells = [columns.map((c) => c.title), ...rows.map((row) => columns.map((c) => c.value(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (columns[i].right ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** ops/s with thousands separators and no decimals (one decimal below 100). */
export function formatOps(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
}
