import { performance } from 'node:perf_hooks';
import { median, quantile, type Comparison, type Operation } from './measure';

// Timing two sides request by request, for suites whose difference is smaller than what
// whole rounds resolve on a busy machine (versioning, admin).

/**
 * Times the two sides one request at a time, alternating (A B, B A, ...), so load from
 * elsewhere on the machine falls on both within microseconds: the plugin's cost is a few
 * microseconds on a request of a few hundred, well below what whole 300 ms rounds resolve
 * on a busy machine. ops/s are from the median request time; the ratio is per block of
 * requests (the median block, and the middle half of the blocks).
 */
export async function interleaved(ours: Operation, theirs: Operation, requests: number): Promise<Comparison> {
  const time = async (op: Operation) => {
    const start = performance.now();
    await op();
    return performance.now() - start;
  };
  for (let i = 0; i < Math.min(500, requests / 4); i++) await Promise.all([ours(), theirs()]);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < requests; i++) {
    if (i % 2 === 0) {
      a.push(await time(ours));
      b.push(await time(theirs));
    } else {
      b.push(await time(theirs));
      a.push(await time(ours));
    }
  }
  const blocks = 40;
  const size = Math.floor(requests / blocks);
  const ratios = Array.from(
    { length: blocks },
    (_, k) => median(b.slice(k * size, (k + 1) * size)) / median(a.slice(k * size, (k + 1) * size)),
  );
  return {
    crudsmith: 1000 / median(a),
    knex: 1000 / median(b),
    ratio: median(ratios),
    ratioRange: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
  };
}
