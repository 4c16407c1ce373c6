import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openDatabase, type TestDatabase } from '../fixtures/db';

// Runs the example application's entry point from source, as `npm start` does, in a
// process of its own, for the tests that need several processes or the real entry point.
// Node with tsx's loader rather than the tsx command: the command is a second process that
// only relays signals, and costs each start about a second of CPU on a busy machine.
const root = resolve(__dirname, '../..');

/** A running example-app process. */
export interface AppProcess {
  /** `http://127.0.0.1:port`, read from the app's own start-up line. */
  url: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes its temporary DATA_DIR. */
  stop(): Promise<void>;
  /** Sends the process a signal. */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the exit code once the process has exited (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts the example app with `env` added to the environment (PORT defaults to 0, DATA_DIR
 * to a fresh temporary directory, BCRYPT_ROUNDS to 4, ADMIN_PASSWORD to a fixed test value)
 * and resolves once it listens; rejects with its output if it exits or takes over `timeoutMs`.
 */
export function spawnApp(env: Record<string, string> = {}, timeoutMs = 30_000): Promise<AppProcess> {
  const dataDir = env.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'crudsmith-app-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/app/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_ROUNDS: '4',
      ADMIN_PASSWORD: 'admin-test-password-1',
      DATA_DIR: dataDir ?? '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async () => {
    await stopProcess(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  return new Promise((resolvePromise, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`example app ${why}:\n${output}`)));
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (more: Buffer) => (output += more.toString()));
        resolvePromise({ url: match[1], output: () => output, stop, signal: (name) => void child.kill(name), exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => fail(`exited with code ${code}`));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Two example processes sharing one fresh PostgreSQL database. */
export interface TwoApps {
  db: TestDatabase;
  a: AppProcess;
  b: AppProcess;
}

/**
 * Starts a Koa process, then a `second` one, on a fresh PostgreSQL database with `env(url)`
 * added. One after the other: A migrates and keeps the generated secret key; B finds both.
 */
export async function startTwoApps(
  env: (databaseUrl: string) => Record<string, string>,
  second: 'express' | 'fastify' = 'express',
): Promise<TwoApps> {
  const db = await openDatabase('postgres');
  const shared = env(db.url!);
  const a = await spawnApp({ ...shared, ADAPTER: 'koa' }, 60_000);
  const b = await spawnApp({ ...shared, ADAPTER: second }, 60_000);
  return { db, a, b };
}

/** Stops what startTwoApps started (any part of it may be missing after a failed start). */
export async function stopTwoApps(apps: Partial<TwoApps>): Promise<void> {
  await apps.a?.stop();
  await apps.b?.stop();
  await apps.db?.destroy();
}
