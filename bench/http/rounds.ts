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
  /** The database server's CPU per request (µs), for a target that can tell it (see Target.dbCpu). */
  dbCpu?: number;
}

/** Statements sent per request, by side (counted from each server's knex 'query' events). */
export type Statements = { crudsmith: number; natural: number; floor?: number };

/** One row of the HTTP table: an operation through one adapter against its two floors. */
export interface HttpRow {
  engine: string;
  framework: string;
  operation: string;
  crudsmith: SideResult;
  /** The natural floor: what a person writes by hand (one statement per write). */
  natural: SideResult;
  /** The same-SQL floor: by hand, sending crudsmith's own statements (none for keyset pages). */
  floor?: SideResult;
  /** crudsmith ÷ natural floor requests per second: the median of the per-round ratios. */
  ratio: number;
  /** First and third quartile of the per-round ratios. */
  ratioRange: [number, number];
  /** Natural floor ÷ crudsmith server CPU per request: the median of the per-round ratios. */
  cpuRatio: number;
  /** crudsmith ÷ same-SQL floor requests per second: framework and library overhead alone. */
  sameSqlRatio?: number;
  statements: Statements;
}

/** A server under test: its port, a way to wait until it has answered everything, its CPU time (µs). */
export interface Target {
  port: number;
  idle(): Promise<void>;
  cpu(): Promise<number>;
  /** The CPU time the database's processes serving this target have used (µs), when they can be read. */
  dbCpu?(): Promise<number>;
}

/** Loads one server, then waits for its last requests, so no two servers ever overlap. */
async function run(target: Target, kind: RequestKind, seconds: number, connections?: number): Promise<SideResult> {
  const before = await target.cpu();
  const dbBefore = await target.dbCpu?.();
  const { rps, p99, requests } = await load(target.port, kind, seconds, { connections });
  await target.idle();
  const cpu = ((await target.cpu()) - before) / requests;
  const dbAfter = await target.dbCpu?.();
  return dbAfter === undefined ? { rps, p99, cpu } : { rps, p99, cpu, dbCpu: (dbAfter - dbBefore!) / requests };
}

/**
 * Warms every server up, then loads them in rounds, one at a time, the order rotating
 * each round (A B C, B C A, ...), so that whatever else the machine does falls on all
 * alike. `kind` gives each side its sequence of requests (the same one, or the same
 * requests in a peer's own syntax). Answers each side's rounds.
 */
export async function measureSides<K extends string>(
  targets: Record<K, Target>,
  kind: (side: K) => RequestKind,
  options = defaultHttpOptions,
): Promise<Record<K, SideResult[]>> {
  const sides = Object.keys(targets) as K[];
  const kinds = Object.fromEntries(sides.map((side) => [side, kind(side)])) as Record<K, RequestKind>;
  const results = Object.fromEntries(sides.map((side) => [side, [] as SideResult[]])) as Record<K, SideResult[]>;
  const measure = async (side: K, seconds: number) =>
    results[side].push(await run(targets[side], kinds[side], seconds, options.connections));
  for (const side of sides) await measure(side, options.warmupSeconds);
  for (const side of sides) results[side].length = 0;
  for (let round = 0; round < options.rounds; round++) {
    for (let at = 0; at < sides.length; at++) await measure(sides[(round + at) % sides.length], options.roundSeconds);
  }
  return results;
}

/** Medians of one side's rounds. */
export function sideMedians(results: SideResult[]): SideResult {
  return {
    rps: median(results.map((r) => r.rps)),
    p99: median(results.map((r) => r.p99)),
    cpu: median(results.map((r) => r.cpu)),
    ...(results[0]?.dbCpu === undefined ? {} : { dbCpu: median(results.map((r) => r.dbCpu!)) }),
  };
}

/** The ratio of two sides' rounds: median and middle half of the per-round req/s ratios, and the CPU ratio (floor ÷ subject). */
export function ratioOf(
  subject: SideResult[],
  floor: SideResult[],
): { ratio: number; ratioRange: [number, number]; cpuRatio: number } {
  const ratios = subject.map((r, i) => r.rps / floor[i].rps);
  return {
    ratio: median(ratios),
    ratioRange: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    cpuRatio: median(floor.map((r, i) => r.cpu / subject[i].cpu)),
  };
}

/** Loads crudsmith and one floor in alternating rounds (A B, B A, ...) and compares them. */
export async function compareServers(
  targets: { crudsmith: Target; floor: Target },
  kind: () => RequestKind,
  options = defaultHttpOptions,
) {
  const results = await measureSides(targets, kind, options);
  return {
    crudsmith: sideMedians(results.crudsmith),
    floor: sideMedians(results.floor),
    ...ratioOf(results.crudsmith, results.floor),
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

const columns: Column<HttpRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'adapter', value: (r) => r.framework },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith req/s', value: (r) => formatOps(r.crudsmith.rps), right: true },
  { title: 'natural req/s', value: (r) => formatOps(r.natural.rps), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  { title: 'same-SQL req/s', value: (r) => (r.floor ? formatOps(r.floor.rps) : '—'), right: true },
  { title: 'same-SQL ratio', value: (r) => r.sameSqlRatio?.toFixed(2) ?? '—', right: true },
  {
    title: 'queries/req',
    value: (r) => `${r.statements.crudsmith}/${r.statements.natural}/${r.statements.floor ?? '—'}`,
    right: true,
  },
  { title: 'crudsmith p99', value: (r) => ms(r.crudsmith.p99), right: true },
  { title: 'natural p99', value: (r) => ms(r.natural.p99), right: true },
  { title: 'cpu/req', value: (r) => `${Math.round(r.crudsmith.cpu)}/${Math.round(r.natural.cpu)} µs`, right: true },
  { title: 'cpu ratio', value: (r) => r.cpuRatio.toFixed(2), right: true },
];

/** The HTTP suite's table, with what its columns mean. */
export function httpTable(rows: HttpRow[]): string {
  return [
    formatTable(columns, rows),
    '',
    'ratio: crudsmith req/s ÷ natural floor req/s (the same framework, by hand as a person writes it: one statement per write),',
    'the median over the rounds (target ≥ 0.95); middle half: first and third quartile of the per-round ratios',
    "same-SQL ratio: crudsmith ÷ the hand-written floor that sends crudsmith's own statements (framework and library overhead alone)",
    'queries/req: statements each server sent per request, crudsmith/natural/same-SQL (BEGIN and COMMIT count)',
    "p99: the median over the rounds of each run's 99th percentile latency",
    "cpu/req: the server process's CPU time per request, crudsmith/natural (median over the rounds); cpu ratio: natural ÷ crudsmith, the median of",
    "the per-round ratios: what the req/s ratio tends to when the server's own work is the limit (the database's work, on PostgreSQL, is not in it)",
  ].join('\n');
}
