// `npm test`: decide which databases the suites run on, run vitest once, and close with
// the one plain line CI reads: "N passed, M failed[, K skipped]".
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { probeDatabases } from './databases.mjs';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const report = '.vitest-report.json';

const { reachable, missing } = await probeDatabases();
if (missing.length > 0) {
  const lines = missing.map((m) => `  ${m.name}: ${m.error}`).join('\n');
  if (ci) {
    console.error(`CI=true and these databases cannot be reached, so their suites cannot run:\n${lines}`);
    process.exit(1);
  }
  console.warn(`Databases not reachable; their suites are skipped in this local run:\n${lines}`);
}
console.log(`Database suites run on: ${reachable.join(', ')}`);

rmSync(report, { force: true });
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
const run = spawnSync('npx', args, {
  stdio: 'inherit',
  env: { ...process.env, CRUDSMITH_DATABASES: reachable.join(',') },
});

let counts;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  counts = {
    passed: json.numPassedTests,
    failed:
      json.numFailedTests + (json.numFailedTestSuites > 0 && json.numFailedTests === 0 ? json.numFailedTestSuites : 0),
    skipped: json.numPendingTests + json.numTodoTests,
  };
} catch (error) {
  console.error(`No vitest report (${error.message}).`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : '';
console.log(`${counts.passed} passed, ${counts.failed} failed${skipped}`);
if (counts.passed + counts.failed === 0) {
  console.error('No test ran: that is a failure, not a pass.');
  process.exit(1);
}
process.exit(counts.failed > 0 || run.status !== 0 ? 1 : 0);
