// The fuzz of the example app on one adapter, on each engine it runs on (SQLite and
// PostgreSQL unless FUZZ_ENGINES says otherwise): every operation of every API version's
// OpenAPI document, fetched from the running app (each also lists the unversioned /auth
// routes; they are fuzzed once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterName } from '../../examples/app/src/server';
import { ADMIN_PASSWORD, PASSWORD, startExample, type ExampleServer } from '../example/example-server';
import { ENGINES, type Engine } from '../fixtures/db';
import { Callers } from './callers';
import { fuzzOperations, fuzzSettings, statusSummary } from './fuzz-run';
import { operationsOf, type Operation } from './operations';

const settings = fuzzSettings();
const engines = (process.env.FUZZ_ENGINES?.split(',') ?? ['sqlite', 'postgres']).filter((engine): engine is Engine =>
  ENGINES.includes(engine as Engine),
);

/** The operations the example documents: each version's document, an operation listed by several once. */
async function documentedOperations(ex: ExampleServer): Promise<Operation[]> {
  const versions = await ex.client().get('/api/versions');
  const operations = new Map<string, Operation>();
  for (const label of versions.body.available_versions as string[]) {
    const document = await ex.client().get(`/api/${label}/openapi.json`);
    expect(document.status).toBe(200);
    for (const operation of operationsOf(label, document.body))
      if (!operations.has(`${operation.method} ${operation.path}`))
        operations.set(`${operation.method} ${operation.path}`, operation);
  }
  // /auth comes from the published documents, not from the router.
  expect(
    ex.app.auth.router.every((route) =>
      operations.has(`${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    ),
  ).toBe(true);
  return [...operations.values()];
}

/** Registers the fuzz of the example on `adapter`. */
export function fuzzExample(adapter: AdapterName): void {
  describe.each(engines)(`the OpenAPI-driven fuzz on ${adapter}, %s`, (engine) => {
    let ex: ExampleServer;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-fuzz-'));
      ex = await startExample(engine, {
        adapter,
        users: ['fuzzuser'],
        build: { dataDir, rateLimit: { defaultLimit: 1_000_000 }, registerRateLimit: 1_000_000 },
      });
    });
    afterAll(async () => {
      await ex?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it(
      'answers every documented operation, shaped or hostile, with a documented status and body, never a 5xx, within the time bound',
      async () => {
        console.log(
          `fuzz ${adapter}/${engine}: FUZZ_SEED=${settings.seed} FUZZ_RUNS=${settings.runs} FUZZ_SECONDS=${settings.seconds}`,
        );
        const operations = await documentedOperations(ex);
        expect(operations.length).toBeGreaterThan(30);
        const items = await Promise.all(
          [1, 2, 3].map((n) =>
            ex.client().request('POST', '/api/v1/items', { json: { name: `fuzz item ${n}`, price: n } }),
          ),
        );
        const tier = await ex.admin.post('/api/v1/tiers', { name: 'fuzztier' });
        expect([...items.map((a) => a.status), tier.status]).toEqual([201, 201, 201, 201]);
        const callers = new Callers(
          ex.base,
          ex.db.knex,
          { username: 'admin', password: ADMIN_PASSWORD },
          { username: 'fuzzuser', password: PASSWORD },
        );
        const known = {
          id: items.map((a) => String(a.body.id)),
          user_id: [String(ex.ids.fuzzuser)],
          tier_name: ['fuzztier', 'free'],
        };
        const { failures, statuses } = await fuzzOperations(
          { base: ex.base, callers, known, label: `${adapter}/${engine}` },
          operations,
          settings,
        );
        if (process.env.FUZZ_STATS) console.log(statusSummary(statuses));
        expect(failures.map((f) => f.message).join('\n\n')).toBe('');
      },
      60_000 + (settings.seconds + settings.runs * 10) * 1000,
    );
  });
}
