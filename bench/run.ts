import { assertBuiltPackages, ensureFreshBuild } from './lib/built';
import { resultTable, type Suite } from './lib/suite';

// `npm run bench` runs every suite in order and prints one table per suite;
// `npm run bench -- repository` runs only the suites named. It measures the built
// packages: the suites, which load @crudsmith/*, are imported only once dist/ is current.
// BENCH_RUNS=3 runs each suite that can merge its runs three whole times and prints the
// medians of the per-run ratios.

/** BENCH_RUNS: how many times to run each suite that can merge its runs (one unless set). */
const RUNS = Math.max(1, Math.floor(Number(process.env.BENCH_RUNS) || 1));

/** The suite's rows: one run, or RUNS whole runs merged into medians when the suite can merge them. */
async function runSuite(suite: Suite<any>): Promise<any[]> {
  if (RUNS === 1) return suite.run();
  if (!suite.merge) {
    console.log(`  BENCH_RUNS=${RUNS}: ${suite.name} runs once (it has no medians of several runs)`);
    return suite.run();
  }
  const runs: any[][] = [];
  for (let run = 1; run <= RUNS; run++) {
    console.log(`  run ${run} of ${RUNS}`);
    runs.push(await suite.run());
  }
  return suite.merge(runs);
}

async function main(): Promise<void> {
  ensureFreshBuild();
  const { suites } = await import('./suites.js');
  assertBuiltPackages('the bench process');
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !suites.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown suite(s): ${unknown.join(', ')} (known: ${suites.map((s) => s.name).join(', ')})`);
    process.exitCode = 2;
    return;
  }
  for (const suite of suites) {
    if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
    console.log(`${suite.name}:`);
    const rows = await runSuite(suite);
    console.log(`\n${suite.table ? suite.table(rows) : resultTable(rows)}\n`);
  }
  // Each suite's table names its own reference and target; this says what the columns mean.
  console.log(
    "ratio: crudsmith ops/s ÷ the reference side's ops/s, the median over the rounds (each suite states its target)",
  );
  console.log('middle half: first and third quartile of the per-round ratios (narrow = trustworthy)');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
