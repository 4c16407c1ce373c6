import { fromEnv, median, quantile } from '../lib/measure';
import { formatOps, formatTable, type Column } from '../lib/table';
import { load, type RequestKind } from './load';

/** How long to load each server, in seconds; each knob can be set from the environment. */
export interface HttpMeasureOptions {
  warmupSeconds: number;
  rounds: number;
  roundSeconds: number;
  /** Concurrent connections of each load; CONNECTIONS (8) unless given. */
  connections?: number;
}

export const defaultHttpOptions: HttpMeasureOptions = {
  warmupSeconds: fromEnv('BENCH_HTTP_WARMUP_S', 0.3),
  rounds: fromEnv('BENCH_HTTP_ROUNDS', 8),
  roundSeconds: fromEnv('BENCH_HTTP_ROUND_S', 0.3),
};

/** One side of a row: median requests per second, p99 latency (ms) and server CPU per request (µs) over the rounds. */
export interface SideResult {
  rps: number;
  p99: number;
  cpu: number;
}

/** One row of the HTTP table: an operation through one adapter against its floor. */
export interface HttpRow {
  engine: string;
  framework: string;
  operation: string;
  crudsmith: SideResult;
  floor: SideResult;
  /** crudsmith ÷ floor requests per second: the median of the per-round ratios. */
  ratio: number;
  /** First and third quartile of the per-round ratios. */
  ratioRange: [number, number];
  /** Floor ÷ crudsmith server CPU per request: the median of the per-round ratios. */
  cpuRatio: number;
}

/** A server under test: its port, a way to wait until it has answered everything, its CPU time (µs). */
export interface Target {
  port: number;
  idle(): Promise<void>;
  cpu(): Promise<number>;
}

/** Loads one server, then waits for its last requests, so no two servers ever overlap. */
async function run(target: Target, kind: RequestKind, seconds: number, connections?: number): Promise<SideResult> {
  const before = await target.cpu();
  const { rps, p99, requests } = await load(target.port, kind, seconds, { connections });
  await target.idle();
  return { rps, p99, cpu: (await target.cpu() - before) / requests };
}

/**
 * Warms both servers up, then loads them in rounds, one at a time (A B, B A, A B, ...), so
 * that whatever else the machine does falls on both alike. `kind` gives both the same
 * sequence of requests.
 */
export async function compareServers(targets: { crudsmith: Target; floor: Target }, kind: () => RequestKind, options = defaultHttpOptions) {
  const crudsmithKind = kind();
  const floorKind = kind();
  const ours: SideResult[] = [];
  const theirs: SideResult[] = [];
  const crudsmith = async (seconds: number) => ours.push(await run(targets.crudsmith, crudsmithKind, seconds, options.connections));
  const floor = async (seconds: number) => theirs.push(await run(targets.floor, floorKind, seconds, options.connections));
  await crudsmith(options.warmupSeconds);
  await floor(options.warmupSeconds);
  ours.length = 0;
  theirs.length = 0;
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 0) {
      await crudsmith(options.roundSeconds);
      await floor(options.roundSeconds);
    } else {
      await floor(options.roundSeconds);
      await crudsmith(options.roundSeconds);
    }
  }
  const side = (results: SideResult[]): SideResult => ({
    rps: median(results.map((r) => r.rps)),
    p99: median(results.map((r) => r.p99)),
    cpu: median(results.map((r) => r.cpu)),
  });
  const ratios = ours.map((r, i) => r.rps / theirs[i].rps);
  return {
    crudsmith: side(ours),
    floor: side(theirs),
    ratio: median(ratios),
    ratioRange: [quantile(ratios, 0.25), quantile(ratios, 0.75)] as [number, number],
    cpuRatio: median(theirs.map((r, i) => r.cpu / ours[i].cpu)),
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

const columns: Column<HttpRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'adapter', value: (r) => r.framework },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith req/s', value: (r) => formatOps(r.crudsmith.rps), right: true },
  { title: 'floor req/s', value: (r) => formatOps(r.floor.rps), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  { title: 'crudsmith p99', value: (r) => ms(r.crudsmith.p99), right: true },
  { title: 'floor p99', value: (r) => ms(r.floor.p99), right: true },
  { title: 'cpu/req', value: (r) => `${Math.round(r.crudsmith.cpu)}/${Math.round(r.floor.cpu)} µs`, right: true },
  { title: 'cpu ratio', value: (r) => r.cpuRatio.toFixed(2), right: true },
];

/** The HTTP suite's table, with what its columns mean. */
export function httpTable(rows: HttpRow[]): string {
  return [
    formatTable(columns, rows),
    '',
    'ratio: crudsmith req/s ÷ floor req/s (the same framework, by hand), the median over the rounds (target ≥ 0.90)',
    'middle half: first and third quartile of the per-round ratios; p99: the median over the rounds of each run\'s 99th percentile latency',
    'cpu/req: the server process\'s CPU time per request, crudsmith/floor (median over the rounds); cpu ratio: floor ÷ crudsmith, the median of',
    'the per-round ratios: what the req/s ratio tends to when the server\'s own work is the limit (the database\'s work, on PostgreSQL, is not in it)',
  ].join('\n');
}
