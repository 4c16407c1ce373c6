// The HTTP-level CRUD conformance suite: generated endpoints on a real listening server,
// organised by area, run by every adapter on every engine.
import { describe } from 'vitest';
import type { AdapterHarness } from '../adapters/conformance';
import { ENGINES } from '../fixtures/db';
import { crudEnv } from './kit';
import { describeBodyCost } from './suite-body-cost';
import { describeConditional } from './suite-conditional';
import { describeConfig } from './suite-config';
import { describeCustomRoutes } from './suite-custom';
import { describeDependencies } from './suite-deps';
import { describeEndpoints } from './suite-endpoints';
import { describeFilters } from './suite-filters';
import { describeHiddenColumns } from './suite-hidden';
import { describeBadInput } from './suite-input';
import { describeList } from './suite-list';
import { describeRelations } from './suite-relations';

/** Runs the CRUD suite through `harness` on each engine of ENGINES. */
export function runCrudSuite(harness: AdapterHarness): void {
  describe.each(ENGINES)(`${harness.name}: generated CRUD on %s`, (engine) => {
    const env = crudEnv(harness, engine);
    describeEndpoints(env);
    describeList(env);
    describeFilters(env);
    describeHiddenColumns(env);
    describeConfig(env);
    describeDependencies(env);
    describeRelations(env);
    describeCustomRoutes(env);
    describeBadInput(env);
    describeBodyCost(env);
    describeConditional(env);
  });
}
