import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule, runCli } from '@crudsmith/client/generate';
import { ADAPTERS } from '../../examples/app/src/server';
import { ENGINES } from '../fixtures/db';
import { PASSWORD, startExample, type ExampleServer } from './example-server';

// The example's generated clients: committed without drift (generated from the app's module,
// no server needed, and equal to what its served documents give), compiled by a strict
// consumer whose misuses must not compile, and used by a plain node script with the built
// client against the example on every adapter (on the first engine of the run: the
// client's behaviour does not depend on the database).
// After a change of the example's API, `UPDATE_CLIENTS=1 npx vitest run test/example/typed-client.test.ts -t "byte for byte"`
// writes the committed clients anew.

const root = resolve(__dirname, '../..');
const clients = join(root, 'examples/app/client');
const appModule = join(root, 'examples/app/src/openapi.ts');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'crudsmith-client-'));
// The built client where a user's project has it; the consumer's compiled script resolves it from there.
const builtClient = join(work, 'node_modules/@crudsmith/client');
const script = join(work, 'out/test/example/typed-client/run-journey.js');
const exec = promisify(execFile);

/** A node process with a clean environment (no loader of the test runner); its output and exit code. */
async function node(args: string[]): Promise<{ output: string; code: number }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH } });
    return { output: stdout + stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, code: failed.code ?? 1 };
  }
}

let consumerCompile: { output: string; code: number };

// Once for the file, both at once: the client built as its package builds, and the consumer
// compiled by plain strict tsc (skipLibCheck off) to JavaScript. Seconds, more on a busy machine.
beforeAll(async () => {
  const [build, compile] = await Promise.all([
    node([
      tsc,
      '-p',
      join(root, 'client/tsconfig.build.json'),
      '--outDir',
      join(builtClient, 'dist'),
      '--tsBuildInfoFile',
      join(work, 'client.tsbuildinfo'),
    ]),
    node([
      tsc,
      '-p',
      join(__dirname, 'typed-client/tsconfig.json'),
      '--noEmit',
      'false',
      '--outDir',
      join(work, 'out'),
    ]),
  ]);
  expect(build).toEqual({ output: '', code: 0 });
  mkdirSync(builtClient, { recursive: true });
  copyFileSync(join(root, 'client/package.json'), join(builtClient, 'package.json'));
  consumerCompile = compile;
}, 180_000);

describe('typed client consumer', () => {
  it('compiles with strict tsc, every misuse an error', () => {
    expect(consumerCompile).toEqual({ output: '', code: 0 });
  });

  it("the built bin, under plain node, generates from the app's TypeScript module what is committed", async () => {
    const bin = join(builtClient, 'dist/bin.js');
    expect(await node([bin, 'generate', '--input', appModule, '--out-dir', clients, '--check'])).toEqual({
      output: '',
      code: 0,
    });
  });
});

describe.each(ADAPTERS)('typed client on %s', (adapter) => {
  let ex: ExampleServer;
  beforeAll(async () => {
    ex = await startExample(ENGINES[0], { adapter, users: ['clara'] });
  });
  afterAll(() => ex?.close());

  it('a plain node script with the built client lists with filters, paginates, creates, updates, uploads a file, refreshes a bearer token once, and re-mints a session CSRF token once', async () => {
    const { stdout } = await exec(process.execPath, [script, ex.base], {
      env: { PATH: process.env.PATH, JOURNEY_USER: 'clara', JOURNEY_PASSWORD: PASSWORD },
    });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
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
    // The multipart body reached the server as a file part: the stored avatar is a PNG.
    expect(seen.avatar).toMatch(/\/static\/avatars\/[0-9a-f]{32}\.png$/);
    const stored = await fetch(new URL(String(seen.avatar), ex.base));
    expect(stored.headers.get('content-type')).toBe('image/png');
  });

  // The documents do not depend on the adapter: checked once, on Koa (and never counted as skipped elsewhere).
  if (adapter === 'koa')
    it("generates each version byte for byte as committed, from the app's module and from the served documents, and --check agrees", async () => {
      const fromModule = ['generate', '--input', appModule, '--out-dir', clients];
      // UPDATE_CLIENTS=1 writes the example's clients anew after a change of its API.
      if (process.env.UPDATE_CLIENTS === '1') expect(await runCli(fromModule)).toBe(0);
      expect(await runCli([...fromModule, '--check'], () => {})).toBe(0);
      const dir = mkdtempSync(join(tmpdir(), 'crudsmith-client-'));
      for (const version of ['v1', 'v2']) {
        const doc = (await ex.client().get(`/api/${version}/openapi.json`)).body;
        expect(generateModule(doc)).toBe(readFileSync(join(clients, `${version}.ts`), 'utf8'));
        writeFileSync(join(dir, `${version}.json`), JSON.stringify(doc));
      }
      const args = ['generate', '--input', join(dir, 'v2.json'), '--out', join(dir, 'v2.ts')];
      expect(await runCli([...args, '--check'], () => {})).toBe(1);
      expect(await runCli(args)).toBe(0);
      expect(await runCli([...args, '--check'])).toBe(0);
      // An app module with several versions needs --version for one --out.
      const lines: string[] = [];
      expect(await runCli(['generate', '--input', appModule, '--out', join(dir, 'one.ts')], (l) => lines.push(l))).toBe(
        2,
      );
      expect(lines.join('\n')).toMatch(/has the versions v1, v2: pick one with --version/);
      expect(await runCli(['generate', '--input', appModule, '--out', join(dir, 'v1.ts'), '--version', 'v1'])).toBe(0);
      expect(readFileSync(join(dir, 'v1.ts'), 'utf8')).toBe(readFileSync(join(clients, 'v1.ts'), 'utf8'));
    });
});
