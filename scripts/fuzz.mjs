// `npm run fuzz`: the long run of the OpenAPI-driven fuzz that `npm test` runs briefly.
// Same suites (test/fuzz/), more requests per operation and rounds until time runs out.
// Settings (environment): FUZZ_RUNS (requests per operation per round, default 50),
// FUZZ_SECONDS (keep starting rounds this long, default 120), FUZZ_SEED (replay a run),
// FUZZ_ONLY (operationIds containing it), FUZZ_ENGINES (default sqlite,postgres),
// FUZZ_SLOW_MS (default 5000), FUZZ_STATS=1 (print each operation's statuses).
// Arguments are passed to vitest: `npm run fuzz -- test/fuzz/koa.test.ts`.
import { spawnSync } from 'node:child_process';
import { probeDatabases } from './databases.mjs';

const { reachable, missing } = await probeDatabases();
for (const m of missing) console.warn(`${m.name} not reachable, not fuzzed: ${m.error}`);
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test/fuzz/'];
const env = {
  ...process.env,
  CRUDSMITH_DATABASES: reachable.join(','),
  FUZZ_RUNS: process.env.FUZZ_RUNS ?? '50',
  FUZZ_SECONDS: process.env.FUZZ_SECONDS ?? '120',
};
console.log(
  `fuzz: FUZZ_RUNS=${env.FUZZ_RUNS} FUZZ_SECONDS=${env.FUZZ_SECONDS}${env.FUZZ_SEED ? ` FUZZ_SEED=${env.FUZZ_SEED}` : ''} on ${reachable.join(', ')}`,
);
// One suite at a time: each holds a server and its database busy for the whole run.
const run = spawnSync('npx', ['vitest', 'run', '--no-file-parallelism', ...files], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
