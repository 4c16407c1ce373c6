import type { ChildProcess } from 'node:child_process';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import type { Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';
import type { RequestKind } from './http/load';
import { allowNestCreates, installPeers, peerKind } from './http/peer-apps';
import type { Framework, Peer, Side } from './http/protocol';
import { defaultHttpOptions, measureSides, ratioOf, sideMedians, type SideResult } from './http/rounds';
import { OPERATIONS, operations, prepare, traced, warmUpAll, type Operation } from './http/scenario';
import { startServer, stopServers, type ServerProcess } from './http/server';

// The libraries users pick instead of crudsmith, in the same run, on the same data and
// the same requests (each in its own query syntax), each app written the way its own
// docs teach: Feathers 5 (@feathersjs/koa + @feathersjs/knex, bench/peers/feathers-app.ts)
// against crudsmith on Koa, NestJS 11 with @dataui/crud and TypeORM
// (bench/peers/nest-app.ts, on Nest's default Express platform) against crudsmith on
// Express, and the natural floor on Koa as the reference. Their packages live in
// bench/peers with a package.json of their own, installed here on first use, so the
// repository's `npm ci` never fetches them.

type PeerSide = 'crudsmith' | 'natural' | 'crudsmith express' | Peer;
/** Each server of a row: its framework and what serves the items. */
const SERVERS: Record<PeerSide, { framework: Framework; side: Side | Peer }> = {
  crudsmith: { framework: 'koa', side: 'crudsmith' },
  natural: { framework: 'koa', side: 'natural' },
  feathers: { framework: 'koa', side: 'feathers' },
  'crudsmith express': { framework: 'express', side: 'crudsmith' },
  nest: { framework: 'express', side: 'nest' },
};
const PEER_SIDES = Object.keys(SERVERS) as PeerSide[];

/** One row of the peers table: an operation, crudsmith against each peer on its framework and the natural floor. */
interface PeerRow {
  engine: string;
  operation: string;
  sides: Record<PeerSide, SideResult>;
  /** crudsmith on Koa ÷ Feathers requests per second: the median of the per-round ratios. */
  feathers: number;
  /** crudsmith on Express ÷ Nest + @dataui/crud requests per second. */
  nest: number;
  /** crudsmith on Koa ÷ the natural floor on Koa. */
  natural: number;
  statements: Record<PeerSide, number>;
}

/** An operation's request sequence for one side, in that side's syntax. */
function kindFor(operation: Operation, side: PeerSide): RequestKind {
  const kind = operation.kind();
  return side === 'feathers' || side === 'nest' ? peerKind(kind, side) : kind;
}

/** Fails the run unless every side answers success; answers the statements each sent per request. */
async function checkAnswers(
  servers: Record<PeerSide, ServerProcess>,
  operation: Operation,
  label: string,
): Promise<Record<PeerSide, number>> {
  const statements = Object.fromEntries(PEER_SIDES.map((side) => [side, 0])) as Record<PeerSide, number>;
  const TRIES = 5;
  for (const side of PEER_SIDES) {
    const kind = kindFor(operation, side);
    for (let i = 0; i < TRIES; i++) {
      const answer = await traced(servers[side], { method: kind.method, ...kind.next() });
      if (answer.status >= 300)
        throw new Error(`${label}: ${side} answered ${answer.status} ${JSON.stringify(answer.json)}`);
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
    await allowNestCreates(db.knex, engine);
    const servers = {} as Record<PeerSide, ServerProcess>;
    await Promise.all(
      PEER_SIDES.map(async (side) => {
        const server = await startServer({ ...SERVERS[side], engine, connection: db.connection });
        children.push(server.child);
        servers[side] = server;
      }),
    );
    // The peers have no keyset pages, conditional reads, bulk create or export.
    const common = ops.filter((op) => !op.keyset && op.peers !== false);
    for (const side of PEER_SIDES)
      await warmUpAll(
        servers[side],
        common.map((op) => ({ kind: () => kindFor(op, side) })),
      );
    for (const operation of common) {
      if (!OPERATIONS.includes(operation.name.split(' ')[0])) continue;
      const label = `${engine} ${operation.name}`;
      const statements = await checkAnswers(servers, operation, label);
      const rounds = await measureSides(servers, (side) => kindFor(operation, side));
      const feathers = ratioOf(rounds.crudsmith, rounds.feathers).ratio;
      const nest = ratioOf(rounds['crudsmith express'], rounds.nest).ratio;
      const natural = ratioOf(rounds.crudsmith, rounds.natural).ratio;
      console.log(
        `  ${label}: ÷ Feathers ${feathers.toFixed(2)}, ÷ Nest ${nest.toFixed(2)}, ÷ natural ${natural.toFixed(2)}, queries/req ${queries(statements)}`,
      );
      const sides = Object.fromEntries(PEER_SIDES.map((side) => [side, sideMedians(rounds[side])])) as Record<
        PeerSide,
        SideResult
      >;
      rows.push({ engine, operation: operation.name, sides, feathers, nest, natural, statements });
    }
  } finally {
    await stopServers(children);
    await db.close();
  }
}

/** Statements per request: crudsmith, Feathers, Nest, the natural floor. */
function queries(statements: Record<PeerSide, number>): string {
  return `${statements.crudsmith}/${statements.feathers}/${statements.nest}/${statements.natural}`;
}

const columns: Column<PeerRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith koa', value: (r) => formatOps(r.sides.crudsmith.rps), right: true },
  { title: 'Feathers', value: (r) => formatOps(r.sides.feathers.rps), right: true },
  { title: '÷ Feathers', value: (r) => r.feathers.toFixed(2), right: true },
  { title: 'crudsmith express', value: (r) => formatOps(r.sides['crudsmith express'].rps), right: true },
  { title: 'Nest', value: (r) => formatOps(r.sides.nest.rps), right: true },
  { title: '÷ Nest', value: (r) => r.nest.toFixed(2), right: true },
  { title: 'natural koa', value: (r) => formatOps(r.sides.natural.rps), right: true },
  { title: '÷ natural', value: (r) => r.natural.toFixed(2), right: true },
  { title: 'queries/req', value: (r) => queries(r.statements), right: true },
];

export const peersSuite: Suite<PeerRow> = {
  name: 'peers',
  table: (rows) =>
    [
      formatTable(columns, rows),
      '',
      'req/s: medians over the rounds; ÷ Feathers: crudsmith on Koa ÷ Feathers 5 (@feathersjs/koa + @feathersjs/knex), target ≥ 1.2;',
      '÷ Nest: crudsmith on Express ÷ NestJS 11 + @dataui/crud + TypeORM (Express platform), target ≥ 3; ÷ natural: crudsmith ÷ the natural Koa floor',
      '(each the median of the per-round ratios); queries/req: statements per request, crudsmith/Feathers/Nest/natural (BEGIN and COMMIT count)',
    ].join('\n'),
  async run() {
    installPeers();
    const { rounds, roundSeconds } = defaultHttpOptions;
    console.log(
      `  per row ${rounds} rounds of ${roundSeconds} s per server, the ${PEER_SIDES.length} servers' order rotating`,
    );
    const rows: PeerRow[] = [];
    for (const engine of ENGINES) await measureEngine(engine, rows);
    return rows;
  },
};
