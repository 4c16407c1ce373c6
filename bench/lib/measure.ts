import { performance } from 'node:perf_hooks';

/** One asynchronous operation, awaited once per iteration (concurrency 1). */
export type Operation = () => Promise<unknown>;

/** How long and how often to measure; each knob can be set from the environment. */
export interface MeasureOptions {
  /** Untimed run of each side before the rounds (ms). */
  warmupMs: number;
  /** Timed rounds; the two sides run one after the other in each, their order flipping every round. */
  rounds: number;
  /** Duration of one side in one round (ms). */
  roundMs: number;
}

/** A positive number from the environment, or the fallback. */
export function fromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

export const defaultMeasureOptions: MeasureOptions = {
  warmupMs: fromEnv('BENCH_WARMUP_MS', 1000),
  rounds: fromEnv('BENCH_ROUNDS', 24),
  roundMs: fromEnv('BENCH_ROUND_MS', 300),
};

/** Runs `op` back to back for about `ms` milliseconds and answers operations per second. */
export async function opsPerSecond(op: Operation, ms: number): Promise<number> {
  const start = performance.now();
  const end = start + ms;
  let count = 0;
  let now: number;
  do {
    await op();
    count++;
    now = performance.now();
  } while (now < end);
  return (count * 1000) / (now - start);
}

/** The q-quantile (0 … 1) of the values, interpolated between neighbours. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/** The result of comparing crudsmith against the same work written by hand. */
export interface Comparison {
  /** Median ops/s of crudsmith over the rounds. */
  crudsmith: number;
  /** Median ops/s of the hand-written side over the rounds. */
  knex: number;
  /**
   * crudsmith ÷ hand-written: the median of the per-round ratios. Each round measures both
   * sides a fraction of a second apart, so a burst of load from elsewhere skews a few
   * rounds, not the result.
   */
  ratio: number;
  /** First and third quartile of the per-round ratios: how much to trust `ratio`. */
  ratioRange: [number, number];
}

/**
 * Warms both sides up, then measures them in rounds (A B, B A, A B, ...) so drift of the
 * machine or the database (caches, autovacuum, GC, other processes) falls on both equally.
 */
export async function compare(
  crudsmith: Operation,
  knex: Operation,
  options: MeasureOptions = defaultMeasureOptions,
): Promise<Comparison> {
  await opsPerSecond(crudsmith, options.warmupMs);
  await opsPerSecond(knex, options.warmupMs);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 0) {
      ours.push(await opsPerSecond(crudsmith, options.roundMs));
      theirs.push(await opsPerSecond(knex, options.roundMs));
    } else {
      theirs.push(await opsPerSecond(knex, options.roundMs));
      ours.push(await opsPerSecond(crudsmith, options.roundMs));
    }
  }
  const ratios = ours.map((value, i) => value / theirs[i]);
  return {
    crudsmith: median(ours),
    knex: median(theirs),
    ratio: median(ratios),
    ratioRange: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
  };
}
