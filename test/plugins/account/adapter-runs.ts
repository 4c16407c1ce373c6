// Where the account plugin's HTTP rules (lockout, stalls, hashing bounds) are checked: on
// every adapter, since each reads the request its own way, and on every engine of the run
// on Koa; Express and Fastify on SQLite, as the account suites run (the engines are covered on Koa).
import type { AdapterHarness } from '../../adapters/conformance';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES, type Engine } from '../../fixtures/db';

/** Every adapter once, with the engine it runs on: `describe.each(ADAPTER_RUNS)('... on %s / %s', ...)` names both. */
export const ADAPTER_RUNS: [string, Engine, AdapterHarness][] = [
  ...ENGINES.map((engine): [string, Engine, AdapterHarness] => ['koa', engine, koaHarness]),
  ['express', 'sqlite', expressHarness],
  ['fastify', 'sqlite', fastifyHarness],
];

/** The three adapters, for rules no engine changes. */
export const HARNESSES: AdapterHarness[] = [koaHarness, expressHarness, fastifyHarness];
