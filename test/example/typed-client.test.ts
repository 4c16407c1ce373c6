import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule, runCli } from '@crudsmith/client/generate';
import { ADAPTERS } from '../../examples/app/src/server';
import { ENGINES } from '../fixtures/db';
import { PASSWORD, startExample, type ExampleServer } from './example-server';
import { journey } from './typed-client/consumer';

// The example's generated clients: committed without drift, compiled by a strict consumer
// whose misuses must not compile, and used against the example on every adapter (on the
// first engine of the run: the client's behaviour does not depend on the database).
// After a change of the example's API, `UPDATE_CLIENTS=1 npx vitest run test/example/typed-client.test.ts`
// writes the committed clients anew.

const root = resolve(__dirname, '../..');
const committed = (version: string) => join(root, `examples/app/client/${version}.ts`);

describe.each(ADAPTERS)('typed client on %s', (adapter) => {
  let ex: ExampleServer;
  beforeAll(async () => {
    ex = await startExample(ENGINES[0], { adapter, users: ['clara'] });
  });
  afterAll(() => ex?.close());

  it('lists with filters, paginates, creates, updates, refreshes a bearer token once, and re-mints a session CSRF token once', async () => {
    const seen = await journey(ex.base, { username: 'clara', password: PASSWORD });
    expect(seen).toMatchObject({
      listed: ['widget', 'gizmo'],
      total: 2,
      pageSizes: [2, 1],
      updatedPrice: 15,
      notFound: true,
      me: { transport: 'bearer' },
      refreshed: true,
      refreshedOnce: true,
      sessionMe: { transport: 'session' },
      signedOut: true,
      usersMe: 'clara',
      exported: 4,
    });
    expect(seen.validationIssues).toBeGreaterThan(0);
  });

  // The documents do not depend on the adapter: checked once, on Koa (and never counted as skipped elsewhere).
  if (adapter === 'koa')
    it('generates each version byte for byte as committed, and --check agrees', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'crudsmith-client-'));
      for (const version of ['v1', 'v2']) {
        const doc = (await ex.client().get(`/api/${version}/openapi.json`)).body;
        // UPDATE_CLIENTS=1 writes the example's clients anew after a change of its API.
        if (process.env.UPDATE_CLIENTS === '1') writeFileSync(committed(version), generateModule(doc));
        expect(generateModule(doc)).toBe(readFileSync(committed(version), 'utf8'));
        if (version === 'v2') {
          writeFileSync(join(dir, 'v2.json'), JSON.stringify(doc));
          const args = ['generate', '--input', join(dir, 'v2.json'), '--out', join(dir, 'v2.ts')];
          expect(await runCli([...args, '--check'], () => {})).toBe(1);
          expect(await runCli(args)).toBe(0);
          expect(await runCli([...args, '--check'])).toBe(0);
        }
      }
    });
});

describe('typed client consumer', () => {
  // tsc checks the client's sources and the lib declarations (skipLibCheck off): seconds, more on a busy machine.
  it('compiles with strict tsc, every misuse an error', { timeout: 120_000 }, () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '-p', join(__dirname, 'typed-client/tsconfig.json')], {
      encoding: 'utf8',
    });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
