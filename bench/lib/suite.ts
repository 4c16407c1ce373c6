import type { Comparison } from './measure';
import { formatOps, formatTable, type Column } from './table';

/** One measured operation of a suite: crudsmith against the same work by hand. */
export interface ResultRow extends Comparison {
  suite: string;
  engine: string;
  operation: string;
}

/** A benchmark suite: sets up what it needs, measures, tears down, answers its rows. */
export interface Suite<Row = ResultRow> {
  name: string;
  run(): Promise<Row[]>;
  /** The printed table of its rows, when they are not ResultRows. */
  table?(rows: Row[]): string;
  /**
   * Several runs' rows as one row each, every ratio the median of the runs' (BENCH_RUNS);
   * a suite without it runs once.
   */
  merge?(runs: Row[][]): Row[];
}

const columns: Column<ResultRow>[] = [
  { title: 'suite', value: (r) => r.suite },
  { title: 'engine', value: (r) => r.engine },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith ops/s', value: (r) => formatOps(r.crudsmith), right: true },
  { title: 'knex ops/s', value: (r) => formatOps(r.knex), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
];

/** The table of one suite's results. */
export function resultTable(rows: ResultRow[]): string {
  return formatTable(columns, rows);
}
