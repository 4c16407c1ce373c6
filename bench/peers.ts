import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import type { Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';
import type { RequestKind } from './http/load';
import type { Peer, Side } from './http/protocol';
import { defaultHttpOptions, measureSides, ratioOf, sideMedians, type SideResult } from './http/rounds';
import { OPERATIONS, operations, prepare, traced, warmUpAll, type Operation } from './http/scenario';
import { startServer, stopServers, type ServerProcess } from './http/server';

// The libraries users pick instead of crudsmith, in the same run, on the same data and
// the same requests (each in its own query syntax), each app written the way its own
// docs teach: Feathers 5 (@feathersjs/koa + @feathersjs/knex, bench/peers/feathers-app.ts),
// against crudsmith and the natural floor on Koa. Their packages live in bench/peers with
// a package.json of their own, installed here on first use, so the repository's `npm ci`
// never fetches them.

const PEERS_DIR = join(__dirname, 'peers');
type PeerSide = Extract<Side, 'crudsmith' | 'natural'> | Peer;
const PEER_SIDES: readonly PeerSide[] = ['crudsmith', 'natural', 'feathers'];

/** One row of the peers table: an operation on Koa, crudsmith against the peers and the natural floor. */
interface PeerRow {
  engine: string;
  operation: string;
  sides: Record<PeerSide, SideResult>;
  /** crudsmith ÷ Feathers requests per second: the median of the per-round ratios, and its middle half. */
  feathers: { ratio: number; ratioRange: [number, number] };
  /** crudsmith ÷ natural floor requests per second. */
  natural: number;
  statements: Record<PeerSide, number>;
}

/** Installs bench/peers from its lockfile unless it is there already. */
function installPeers(): void {
  if (existsSync(join(PEERS_DIR, 'node_modules', '@feathersjs', 'knex'))) return;
  console.log('  installing the peers: npm ci in bench/peers');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: 'inherit' });
}

/** crudsmith's list query in Feathers' syntax: `price[$gte]`, `$sort`, `$skip`, `$limit`. */
function feathersRequest(request: ReturnType<RequestKind['next']>): ReturnType<RequestKind['next']> {
  const [path, search] = request.path.split('?');
  if (search === undefined) return request;
  const asked = new URLSearchParams(search);
  const query = new URLSearchParams();
  for (const [key, value] of asked) {
    if (key === 'price__gte') query.append('price[$gte]', value);
    else if (key === 'sort') query.append(`$sort[${value.replace(/^-/, '')}]`, value.startsWith('-') ? '-1' : '1');
    else if (key === 'offset') query.append('$skip', value);
    else if (key === 'limit') query.append('$limit', value);
    else query.append(key, value);
  }
  return { ...request, path: `${path}?${query}` };
}

/** An operation's request sequence for one side, in that side's syntax. */
function kindFor(operation: Operation, side: PeerSide): RequestKind {
  const kind = operation.kind();
  if (side !== 'feathers') return kind;
  return { method: kind.method, next: () => feathersRequest(kind.next()) };
}

/** Fails the run unless every side answers success; answers the statements each sent per request. */
async function checkAnswers(servers: Record<PeerSide, ServerProcess>, operation: Operation, label: string): Promise<Record<PeerSide, number>> {
  const statements = { crudsmith: 0, natural: 0, feathers: 0 };
  const TRIES = 5;
  for (const side of PEER_SIDES) {
    const kind = kindFor(operation, side);
    for (let i = 0; i < TRIES; i++) {
      const answer = await traced(servers[side], { method: kind.method, ...kind.next() });
      if (answer.status >= 300) throw new Error(`${label}: ${side} answered ${answer.status} ${JSON.stringify(answer.json)}`);
      statements[side] += answer.sql.length / TRIES;
    }
  }
  return statements;
}

async function measureEngine(engine: Engine, rows: PeerRow[]): Promise<void> {
  const db = await openDatabase(engine);
  if (!db) return;
  const children: ChildProcess[] = [];
  try {
    const ops = operations(await prepare(db.knex, engine));
    const servers = {} as Record<PeerSide, ServerProcess>;
    await Promise.all(PEER_SIDES.map(async (side) => {
      const server = await startServer({ framework: 'koa', side, engine, connection: db.connection });
      children.push(server.child);
      servers[side] = server;
    }));
    for (const side of PEER_SIDES) await warmUpAll(servers[side], ops.map((op) => ({ kind: () => kindFor(op, side) })));
    for (const operation of ops) {
      if (!OPERATIONS.includes(operation.name.split(' ')[0])) continue;
      const label = `${engine} koa ${operation.name}`;
      const statements = await checkAnswers(servers, operation, label);
      const rounds = await measureSides(servers, (side) => kindFor(operation, side));
      const feathers = ratioOf(rounds.crudsmith, rounds.feathers);
      const natural = ratioOf(rounds.crudsmith, rounds.natural).ratio;
      console.log(`  ${label}: ÷ Feathers ${feathers.ratio.toFixed(2)}, ÷ natural ${natural.toFixed(2)}, queries/req ${statements.crudsmith}/${statements.natural}/${statements.feathers}`);
      const sides = Object.fromEntries(PEER_SIDES.map((side) => [side, sideMedians(rounds[side])])) as Record<PeerSide, SideResult>;
      rows.push({ engine, operation: operation.name, sides, feathers: { ratio: feathers.ratio, ratioRange: feathers.ratioRange }, natural, statements });
    }
  } finally {
    await stopServers(children);
    await db.close();
  }
}

const columns: Column<PeerRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith req/s', value: (r) => formatOps(r.sides.crudsmith.rps), right: true },
  { title: 'Feathers req/s', value: (r) => formatOps(r.sides.feathers.rps), right: true },
  { title: '÷ Feathers', value: (r) => r.feathers.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.feathers.ratioRange[0].toFixed(2)}–${r.feathers.ratioRange[1].toFixed(2)}` },
  { title: 'natural req/s', value: (r) => formatOps(r.sides.natural.rps), right: true },
  { title: '÷ natural', value: (r) => r.natural.toFixed(2), right: true },
  { title: 'queries/req', value: (r) => `${r.statements.crudsmith}/${r.statements.natural}/${r.statements.feathers}`, right: true },
  { title: 'cpu/req', value: (r) => `${Math.round(r.sides.crudsmith.cpu)}/${Math.round(r.sides.feathers.cpu)} µs`, right: true },
];

export const peersSuite: Suite<PeerRow> = {
  name: 'peers',
  table: (rows) => [
    formatTable(columns, rows),
    '',
    '÷ Feathers: crudsmith req/s ÷ Feathers 5 (@feathersjs/koa + @feathersjs/knex) req/s on Koa, the median of the per-round ratios (target ≥ 1.2)',
    '÷ natural: crudsmith ÷ the natural hand-written Koa floor; queries/req: statements per request, crudsmith/natural/Feathers',
    'cpu/req: server CPU time per request, crudsmith/Feathers',
  ].join('\n'),
  async run() {
    installPeers();
    const { rounds, roundSeconds } = defaultHttpOptions;
    console.log(`  Koa; per row ${rounds} rounds of ${roundSeconds} s per server, the three servers' order rotating`);
    const rows: PeerRow[] = [];
    for (const engine of ENGINES) await measureEngine(engine, rows);
    return rows;
  },
};
