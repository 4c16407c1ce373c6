import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { load, type RequestKind } from './load';
import type { Command, Report, ServerConfig } from './protocol';
import type { Target } from './rounds';

// Starting one bench server in its own process (server-process.ts) and talking to it
// over the IPC channel; the HTTP and rate-limit suites both load servers started here.

/** A running server process, its port, and the way to ask it something. */
export interface ServerProcess extends Target {
  child: ChildProcess;
  /** Sends a command and answers the first report of the given type. */
  ask<T extends Report['type']>(command: Command, answer: T): Promise<Extract<Report, { type: T }>>;
}

/** Forks a server process with `config` (and node's `nodeArgs`) and answers it once it listens. */
export async function startServer(config: ServerConfig, nodeArgs: string[] = []): Promise<ServerProcess> {
  const child = fork(join(__dirname, 'server-process.ts'), [JSON.stringify(config)], {
    // BENCH_SERVER_NODE_ARGS adds node flags to every server (`--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them).
    execArgv: [
      '--import',
      'tsx',
      ...nodeArgs,
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    // tsx reads the tsconfig of the working directory otherwise: decorators need the root's
    // settings, and bench/tsconfig.json drops its source `paths`, so @crudsmith/* loads from dist/.
    env: { ...process.env, TSX_TSCONFIG_PATH: resolve(__dirname, '..', 'tsconfig.json') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const name = config.limited ? `${config.limited.guard}-guarded` : `${config.side} ${config.framework}`;
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${name} server exited with ${code} before listening`);
  });
  const listening = new Promise<number>((done) => {
    child.on('message', (report: Report) => report.type === 'listening' && done(report.port));
  });
  const port = await Promise.race([listening, exited]);
  const ask: ServerProcess['ask'] = (command, answer) =>
    new Promise((done) => {
      const listener = (report: Report) => {
        if (report.type !== answer) return;
        child.off('message', listener);
        done(report as any);
      };
      child.on('message', listener);
      child.send(command);
    });
  return {
    child,
    port,
    ask,
    idle: async () => void (await ask({ type: 'idle' }, 'idle')),
    cpu: async () => (await ask({ type: 'cpu' }, 'cpu')).micros,
  };
}

/** Requests each server answers before anything is timed, within a few seconds at most. */
export const SERVER_WARMUP = Number(process.env.BENCH_HTTP_SERVER_WARMUP) || 2000;
export const SERVER_WARMUP_MAX_S = 5;

/**
 * Loads a server with `kind`, untimed, until V8 has optimised what it runs: counted, not
 * timed, since a busy machine may serve only a few hundred requests a second. Then waits
 * until it has answered everything.
 */
export async function warmUp(server: ServerProcess, kind: RequestKind): Promise<void> {
  await load(server.port, kind, SERVER_WARMUP_MAX_S, { maxRequests: SERVER_WARMUP });
  await server.idle();
}

/**
 * Stops every server process and waits until each has exited. Closing the IPC channel lets
 * a server exit on its own (so node writes what BENCH_SERVER_NODE_ARGS asked for, such as a
 * CPU profile); one that has not gone within five seconds is killed.
 */
export async function stopServers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      if (child.connected) child.disconnect();
      else child.kill();
      const timer = setTimeout(() => child.kill(), 5000);
      await exited;
      clearTimeout(timer);
    }),
  );
}
