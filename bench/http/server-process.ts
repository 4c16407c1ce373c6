import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { assertBuiltPackages } from '../lib/built';
import { connect } from '../lib/db';
import { redisCommandsSent } from '../lib/redis-commands';
import { startCrudsmith } from './crudsmith-apps';
import { startFloor } from './floor-apps';
import { floorHandlers } from './floor';
import { naturalHandlers } from './natural';
import { startLimited } from './limited-apps';
import { readPeaks, resetPeaks } from './memory-peaks';
import { startTaught } from './taught-app';
import type { Command, Listening, Peer, Report, ServerConfig } from './protocol';

// One server of the HTTP or rate-limit suite, in its own process (forked by server.ts; the
// suite runs the load): crudsmith's adapter or the floor, in one framework, on one
// database, or the rate-limit suite's guarded read (limited-apps.ts). It reports
// its port, records the SQL it sends while a trace is on, tells when it has stopped
// working, and exits when its parent goes.

const config = JSON.parse(process.argv[2]) as ServerConfig;
const knex = connect(config.engine, config.connection);
const send = (report: Report) => process.send!(report);

let traced: string[] | undefined;
// The Redis commands sent before the trace began.
let redisBefore = 0;
// When the last query was sent or answered.
let lastActivity = 0;
/** Records a statement the server sends (its knex's, or a peer's own client's). */
function sent(sql: string): void {
  traced?.push(sql);
  lastActivity = performance.now();
}
knex.on('query', (query: { sql: string }) => sent(query.sql));
knex.on('query-response', () => (lastActivity = performance.now()));

// autocannon drops its connections when a run ends, so some handlers are still working
// with no socket left to answer on. Every request of the bench uses the database, and a
// transaction holds its connection throughout: idle means no connection in use or
// awaited in knex's pool, and no query for a while.
const QUIET_MS = 10;
const pool = (knex.client as { pool: { numUsed(): number; numPendingAcquires(): number } }).pool;
// A server is busy while any request is open: a peer on a client of its own (Nest's
// TypeORM) sends nothing through knex, and a streamed export holds no connection between
// its pages.
let open = 0;
function whenIdle(): void {
  const busy = pool.numUsed() + pool.numPendingAcquires() + open > 0;
  if (!busy && performance.now() - lastActivity >= QUIET_MS) send({ type: 'idle' });
  else setTimeout(whenIdle, 2);
}

process.on('message', (command: Command) => {
  if (command.type === 'idle') whenIdle();
  else if (command.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', micros: user + system });
  } else if (command.type === 'memory') {
    send({ type: 'memory', peaks: command.reset ? resetPeaks() : readPeaks() });
  } else if (command.on) {
    traced = [];
    redisBefore = redisCommandsSent();
  } else {
    send({ type: 'traced', sql: traced ?? [], redis: redisCommandsSent() - redisBefore });
    traced = undefined;
  }
});
process.on('disconnect', () => process.exit(0));

/**
 * A peer's app, from bench/peers (its own packages, installed on demand): loaded by a
 * computed path, so the repository's typecheck, which leaves that folder out, never reads it.
 */
async function startPeer(peer: Peer): Promise<Listening> {
  if (peer === 'feathers') {
    const app = (await import(join(__dirname, '..', 'peers', 'feathers-app.ts'))) as {
      startFeathers(db: typeof knex): Promise<Listening>;
    };
    return app.startFeathers(knex);
  }
  // Nest runs from tsc's output (decorator metadata), built by the peers suite.
  const app = (await import(join(__dirname, '..', 'peers', 'dist', 'nest-app.js'))) as {
    startNest(...args: unknown[]): Promise<Listening>;
  };
  return app.startNest(config.engine, config.connection, sent);
}

const start = config.limited
  ? startLimited(config, knex)
  : config.side === 'feathers' || config.side === 'nest'
    ? startPeer(config.side)
    : config.side === 'crudsmith'
      ? startCrudsmith(config.framework, knex)
      : config.side === 'taught'
        ? startTaught(config.framework, knex)
        : startFloor(
            config.framework,
            config.side === 'natural'
              ? naturalHandlers(knex, config.engine, { plainSort: config.plainSort })
              : floorHandlers(knex, config.engine),
          );
start
  .then(({ server }) => {
    server.prependListener('request', (_req, res) => {
      open++;
      res.once('close', () => open--);
    });
    // Checked once the app is up, so every module it loads is in: a server that ran a
    // package's src/ would measure the sources, so it stops the suite instead.
    assertBuiltPackages(
      `the ${config.limited ? `${config.limited.guard}-guarded` : `${config.side} ${config.framework}`} server`,
    );
    send({ type: 'listening', port: (server.address() as AddressInfo).port });
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
