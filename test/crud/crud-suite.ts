// The HTTP-level CRUD conformance suite: generated endpoints on a real listening server,
// organised by area, run by every adapter on every engine.
import { describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../adapters/conformance';
import { ENGINES } from '../fixtures/db';
import { clusterWanted } from '../fixtures/pg-cluster';
import { crudEnv, type CrudEnv } from './kit';
import { STREAMING, streamingReplica } from './replica-backend';
import { describeAccess } from './suite-access';
import { describeBodyCost } from './suite-body-cost';
import { describeBulk } from './suite-bulk';
import { describeConditional } from './suite-conditional';
import { describeConfig } from './suite-config';
import { describeCustomRoutes } from './suite-custom';
import { describeDependencies } from './suite-deps';
import { describeEndpoints } from './suite-endpoints';
import { describeExport } from './suite-export';
import { describeFilters } from './suite-filters';
import { describeHiddenColumns } from './suite-hidden';
import { describeHttp } from './suite-http';
import { describeBadInput } from './suite-input';
import { describeList } from './suite-list';
import { describeRelations } from './suite-relations';

/** Runs the CRUD suite through `harness` on each engine of ENGINES. */
export function runCrudSuite(harness: AdapterHarness): void {
  describe.each(ENGINES)(`${harness.name}: generated CRUD on %s`, (engine) => describeAreas(crudEnv(harness, engine)));
}

/**
 * Runs the CRUD suite through `harness` on PostgreSQL with the generated reads on a real
 * streaming replica (a private primary and replica), then checks the replica served them.
 */
export function runCrudSuiteOnReplica(harness: AdapterHarness): void {
  const wanted = clusterWanted(ENGINES, STREAMING);
  if (!wanted) it.skip('needs PostgreSQL in CRUDSMITH_DATABASES and the PostgreSQL binaries', () => {});
  describe.runIf(wanted)(`${harness.name}: generated CRUD on postgres, reads on a streaming replica`, () => {
    const backend = streamingReplica();
    describeAreas(crudEnv(harness, 'postgres', backend));
    describe('the replica', () => {
      it('served the generated reads, from a server in recovery', async () => {
        const inRecovery = async (knex: typeof backend.primary) =>
          ((await knex.raw('select pg_is_in_recovery() as r')) as { rows: { r: boolean }[] }).rows[0].r;
        expect(await inRecovery(backend.replica)).toBe(true);
        expect(await inRecovery(backend.primary)).toBe(false);
        const itemReads = backend.replicaReads.filter((sql) => /\bfrom "items"/i.test(sql));
        // Reads right after a write through the API carry its token and may go to the primary;
        // the rest must have gone to the replica.
        expect(itemReads.length).toBeGreaterThan(backend.requests / 4);
        expect(backend.replicaReads.some((sql) => /^select count\(/i.test(sql))).toBe(true);
      });
    });
  });
}

function describeAreas(env: CrudEnv): void {
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
  describeAccess(env);
  describeHttp(env);
  describeBulk(env);
  describeExport(env);
}
