// The user's project every packaging case runs in: built, packed and installed once per
// test file (the expensive part, a few minutes), then shared by the cases of that file,
// which add consumer folders to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../fixtures/ports';
import { buildAndPack, cleanEnv, installProject, repoRoot, run, type Packed } from './temp-project';

/** What the user's project installs beside our tarballs: the peers, a driver, TypeScript. */
const USER_PACKAGES = [
  'koa',
  '@types/koa',
  'express',
  '@types/express',
  'fastify',
  'knex',
  'objection',
  'class-validator',
  'class-transformer',
  'reflect-metadata',
  'better-sqlite3',
  // For the consumer of account's and rate-limit's /redis entries; the others must compile without it.
  'ioredis',
  'typescript',
  '@types/node',
];

/** The installed project: its folder and the tarballs in it, set once `useUserProject`'s beforeAll ran. */
export interface UserProject {
  project: string;
  packed: Packed[];
}

const running: ChildProcess[] = [];
const state = {} as UserProject;

/**
 * Builds and packs every package and installs the tarballs into a fresh project before the
 * file's cases run, and removes it after; answers that project. Call once per test file.
 */
export function useUserProject(): UserProject {
  let base: string | undefined;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'crudsmith-packaging-'));
    const packDir = join(base, 'pack');
    state.project = join(base, 'project');
    state.packed = await buildAndPack(packDir);
    await installProject(state.project, packDir, state.packed, USER_PACKAGES);
  }, 600_000);
  afterAll(() => {
    for (const child of running) child.kill();
    if (base) rmSync(base, { recursive: true, force: true });
  });
  return state;
}

export const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The first fenced block of `lang` in the README section headed `heading`. */
export function readmeBlock(heading: string, lang: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section);
  if (!block) throw new Error(`README.md's "${heading}" has no \`\`\`${lang} block`);
  return block[1];
}

/** Compiles a consumer folder of the user's project with its own tsc; answers the files of the program. */
export async function compile(folder: string): Promise<string[]> {
  const tsc = join(state.project, 'node_modules', 'typescript', 'bin', 'tsc');
  const { stdout } = await run(process.execPath, [tsc, '-p', folder, '--listFiles'], { cwd: state.project });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((file) => relative(state.project, file));
}

/**
 * An ES module consumer of the user's project: `test/packaging/consumers/<name>.ts` as its
 * app.ts, with `"type": "module"`, compiled with skipLibCheck off and only the types its
 * imports reach. Answers its folder.
 */
export function esmConsumer(name: string, resolution: Record<string, string>, source?: string): string {
  const folder = join(state.project, name);
  mkdirSync(folder);
  if (source === undefined)
    copyFileSync(join(repoRoot, 'test', 'packaging', 'consumers', `${name}.ts`), join(folder, 'app.ts'));
  else writeFileSync(join(folder, 'app.ts'), source);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = {
    target: 'ES2022',
    ...resolution,
    strict: true,
    esModuleInterop: true,
    experimentalDecorators: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'dist',
  };
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
  return folder;
}

/** Starts a compiled consumer with plain node and waits until it says it listens. */
export async function start(folder: string, script: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: join(state.project, folder),
    env: cleanEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${folder} did not start within 60 s:\n${output}`)), 60_000);
    const listen = (chunk: Buffer) => {
      output += chunk;
      if (/listening/i.test(output)) {
        clearTimeout(timer);
        done();
      }
    };
    child.stdout!.on('data', listen);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${folder} exited (${code}) before listening:\n${output}`));
    });
  });
  return `http://127.0.0.1:${port}`;
}

export function json(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** ioredis's own types, installed in the project: a consumer of the main entries compiles without them in its program. */
export const IOREDIS = ['ioredis', '@ioredis/commands'];

/** Folders outside a consumer's needs: it must compile without any of them in its program. */
export function foreignFiles(files: string[], packages: string[]): string[] {
  return files.filter((file) => packages.some((name) => file.startsWith(`node_modules/${name}/`)));
}
