import type { ChildProcess } from 'node:child_process';
import { backendCpu, withApplicationName } from './lib/backend-cpu';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import type { ItemsIndex } from './lib/items';
import { median } from './lib/measure';
import type { Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';
import { allowNestCreates, installPeers, peerKind, PEERS } from './http/peer-apps';
import { FRAMEWORKS, type Framework, type Peer } from './http/protocol';
import { defaultHttpOptions, measureSides, ratioOf, sideMedians, type SideResult, type Target } from './http/rounds';
import { operations, prepare, warmUpAll, type Operation } from './http/scenario';
import { startServer, stopServers, type ServerProcess } from './http/server';
import { checkAnswers, type CheckedSide } from './http/taught-answers';

// The setup users have: the item declared the way the README teaches (taught-app.ts: an
// objection model with @Crud, @SoftDelete and @Filter, class-validator schemas, a registry,
// bootstrap), on a table with an ordinary index on the filtered column alone (not one
// shaped after crudsmith's statements), 100,000 rows. Each adapter against one natural
// floor, hand-written Koa + knex whose lists order by the price alone (server CPU and, on
// PostgreSQL, the database's own CPU per request), against the same floor written in its
// own framework, and against Feathers 5 and NestJS + @dataui/crud serving the same table
// and requests: every server of an operation loaded in the same rotating rounds.

const ROWS = Number(process.env.BENCH_TAUGHT_ROWS) || 100_000;
/**
 * `ordinary` (on category alone) unless BENCH_TAUGHT_INDEX asks for `shaped`, the HTTP
 * suite's `(category, is_deleted, price)`, or `documented`, the one the docs name.
 */
const INDEX: ItemsIndex =
  (['shaped', 'documented'] as const).find((i) => i === process.env.BENCH_TAUGHT_INDEX) ?? 'ordinary';
/** The rows measured, by their first word (read, list, create, update). */
const KINDS = (process.env.BENCH_TAUGHT_OPERATIONS ?? 'read,list,create,update').split(',');
/** The peers loaded beside crudsmith (`BENCH_TAUGHT_PEERS=feathers`; `none` leaves both out). */
const TAUGHT_PEERS: Peer[] = PEERS.filter((peer) =>
  (process.env.BENCH_TAUGHT_PEERS ?? PEERS.join(',')).split(',').includes(peer),
);

/** The ratios of a row, each the median of the per-round ratios (and, merged, of the runs'). */
const RATIOS = ['ratio', 'ownFloor', 'feathers', 'nest', 'cpuTimes', 'dbCpuTimes'] as const;
type RatioKey = (typeof RATIOS)[number];

/** One row: an operation through one adapter against the natural Koa floor, its own framework's floor and the peers. */
interface TaughtRow {
  engine: string;
  framework: string;
  operation: string;
  crudsmith: SideResult;
  natural: SideResult;
  /** crudsmith ÷ the natural Koa floor, requests per second. */
  ratio: number;
  ratioRange: [number, number];
  /** crudsmith ÷ the natural floor in the adapter's own framework (the Koa floor's ratio on Koa). */
  ownFloor: number;
  /** crudsmith ÷ Feathers 5, requests per second. */
  feathers?: number;
  /** crudsmith ÷ NestJS + @dataui/crud, requests per second. */
  nest?: number;
  /** crudsmith ÷ natural server CPU per request. */
  cpuTimes: number;
  /** crudsmith ÷ natural database CPU per request. */
  dbCpuTimes?: number;
  statements: { crudsmith: number; natural: number } & Partial<Record<Peer, number>>;
  /** Each run's ratios, when BENCH_RUNS merged several runs into this row. */
  runs?: Partial<Record<RatioKey, number[]>>;
}

const INDEX_NAMES: Record<ItemsIndex, string> = {
  ordinary: 'an index on category alone',
  shaped: 'the index (category, is_deleted, price)',
  documented: 'the index (category, is_deleted, price), its price NULLS FIRST on PostgreSQL',
};

const kindOf = (operation: Operation) => operation.name.split(' ')[0];

/** A server of a row: crudsmith as taught or the natural floor in one framework, or a peer. */
type SideName = `taught ${Framework}` | `natural ${Framework}` | Peer;
interface SideSpec {
  framework: Framework;
  side: 'taught' | 'natural' | Peer;
}

/**
 * Every server of the run, in the order the rounds rotate through: the natural Koa floor
 * (the reference), the other frameworks' natural floors, crudsmith on each adapter, and
 * the peers (Feathers on Koa, Nest on its default Express platform).
 */
function sideSpecs(): Record<SideName, SideSpec> {
  const specs = { 'natural koa': { framework: 'koa', side: 'natural' } } as Record<SideName, SideSpec>;
  for (const framework of FRAMEWORKS) specs[`natural ${framework}`] = { framework, side: 'natural' };
  for (const framework of FRAMEWORKS) specs[`taught ${framework}`] = { framework, side: 'taught' };
  for (const peer of TAUGHT_PEERS) specs[peer] = { framework: peer === 'feathers' ? 'koa' : 'express', side: peer };
  return specs;
}

const peerOf = (spec: SideSpec): Peer | undefined =>
  spec.side === 'feathers' || spec.side === 'nest' ? spec.side : undefined;

const perRound = (a: SideResult[], b: SideResult[], value: (r: SideResult) => number | undefined) => {
  const ratios = a.map((r, i) => (value(r) ?? NaN) / (value(b[i]) ?? NaN));
  return ratios.some(Number.isNaN) ? undefined : median(ratios);
};

async function measureEngine(engine: Engine, rows: TaughtRow[]): Promise<void> {
  const db = await openDatabase(engine);
  if (!db) return;
  const children: ChildProcess[] = [];
  try {
    const ops = operations(await prepare(db.knex, engine, { rows: ROWS, index: INDEX })).filter((op) =>
      KINDS.includes(kindOf(op)),
    );
    if (TAUGHT_PEERS.includes('nest')) await allowNestCreates(db.knex, engine);
    const specs = sideSpecs();
    const names = Object.keys(specs) as SideName[];
    // Each server's connections carry its name, so its PostgreSQL backends can be told apart.
    const appName = (name: SideName) => `bench-${name.replace(' ', '-')}`;
    const servers = {} as Record<SideName, ServerProcess>;
    const targets = {} as Record<SideName, Target>;
    for (const name of names) {
      const connection = engine === 'postgres' ? withApplicationName(db.connection, appName(name)) : db.connection;
      const server = await startServer({ ...specs[name], engine, connection, plainSort: true });
      children.push(server.child);
      servers[name] = server;
      targets[name] = { ...server };
    }
    const kindFor = (operation: Operation, name: SideName) => {
      const peer = peerOf(specs[name]);
      return peer ? peerKind(operation.kind(), peer) : operation.kind();
    };
    for (const name of names)
      await warmUpAll(
        servers[name],
        ops.map((op) => ({ kind: () => kindFor(op, name) })),
      );
    // PostgreSQL's CPU is read for crudsmith and the Koa floor it is compared with.
    const dbSides = names.filter((name) => name === 'natural koa' || specs[name].side === 'taught');
    for (const operation of ops) {
      const label = `${engine} ${operation.name}`;
      const checked = Object.fromEntries(
        names.map((name) => [
          name,
          { server: servers[name], kind: kindFor(operation, name), peer: peerOf(specs[name]) },
        ]),
      ) as Record<SideName, CheckedSide>;
      const statements = await checkAnswers<SideName>(checked, 'natural koa', kindOf(operation), label);
      // The backends exist once each side has served: read their CPU from here on.
      if (engine === 'postgres')
        for (const name of dbSides) targets[name].dbCpu ??= await backendCpu(db.knex, appName(name));
      const rounds = await measureSides(targets, (name) => kindFor(operation, name));
      const natural = rounds['natural koa'];
      for (const framework of FRAMEWORKS) {
        const crudsmith = rounds[`taught ${framework}`];
        const versus = (name: SideName) => (rounds[name] ? ratioOf(crudsmith, rounds[name]).ratio : undefined);
        const { ratio, ratioRange } = ratioOf(crudsmith, natural);
        const row: TaughtRow = {
          engine,
          framework,
          operation: operation.name,
          crudsmith: sideMedians(crudsmith),
          natural: sideMedians(natural),
          ratio,
          ratioRange,
          ownFloor: versus(`natural ${framework}`)!,
          feathers: versus('feathers'),
          nest: versus('nest'),
          cpuTimes: perRound(crudsmith, natural, (r) => r.cpu)!,
          dbCpuTimes: perRound(crudsmith, natural, (r) => r.dbCpu),
          statements: {
            crudsmith: statements[`taught ${framework}`],
            natural: statements['natural koa'],
            ...Object.fromEntries(TAUGHT_PEERS.map((peer) => [peer, statements[peer]])),
          },
        };
        const peers = TAUGHT_PEERS.map((peer) => `, ÷ ${peer} ${row[peer]!.toFixed(2)}`).join('');
        console.log(
          `  ${label} ${framework}: ratio ${ratio.toFixed(2)}, ÷ own floor ${row.ownFloor.toFixed(2)}${peers}, server cpu ×${row.cpuTimes.toFixed(2)}, database cpu ×${row.dbCpuTimes?.toFixed(2) ?? '—'}`,
        );
        rows.push(row);
      }
    }
  } finally {
    await stopServers(children);
    await db.close();
  }
}

/** Several runs' rows as one row each: every ratio the median of the runs', each run's kept to print. */
function mergeRuns(runs: TaughtRow[][]): TaughtRow[] {
  const byRow = new Map<string, TaughtRow[]>();
  for (const row of runs.flat()) {
    const key = `${row.engine} ${row.framework} ${row.operation}`;
    byRow.set(key, [...(byRow.get(key) ?? []), row]);
  }
  return [...byRow.values()].map((rows) => {
    const merged: TaughtRow = {
      ...rows[0],
      crudsmith: sideMedians(rows.map((r) => r.crudsmith)),
      natural: sideMedians(rows.map((r) => r.natural)),
      ratioRange: [median(rows.map((r) => r.ratioRange[0])), median(rows.map((r) => r.ratioRange[1]))],
      runs: {},
    };
    for (const key of RATIOS) {
      const values = rows.map((r) => r[key]);
      if (values.some((value) => value === undefined)) continue;
      merged.runs![key] = values as number[];
      merged[key] = median(values as number[]);
    }
    return merged;
  });
}

/** A ratio, and each run's in brackets when several runs were merged. */
function ratioCell(row: TaughtRow, key: RatioKey): string {
  const value = row[key];
  if (value === undefined) return '—';
  const runs = row.runs?.[key];
  return runs && runs.length > 1
    ? `${value.toFixed(2)} (${runs.map((r) => r.toFixed(2)).join(' ')})`
    : value.toFixed(2);
}

const micros = (value: number | undefined) => (value === undefined ? '—' : String(Math.round(value)));

const columns: Column<TaughtRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'adapter', value: (r) => r.framework },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith req/s', value: (r) => formatOps(r.crudsmith.rps), right: true },
  { title: 'natural koa req/s', value: (r) => formatOps(r.natural.rps), right: true },
  { title: 'ratio', value: (r) => ratioCell(r, 'ratio'), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  { title: '÷ own floor', value: (r) => ratioCell(r, 'ownFloor'), right: true },
  { title: '÷ Feathers', value: (r) => ratioCell(r, 'feathers'), right: true },
  { title: '÷ Nest', value: (r) => ratioCell(r, 'nest'), right: true },
  {
    title: 'queries/req',
    value: (r) =>
      [r.statements.crudsmith, r.statements.natural, r.statements.feathers ?? '—', r.statements.nest ?? '—'].join('/'),
    right: true,
  },
  { title: 'server cpu/req', value: (r) => `${micros(r.crudsmith.cpu)}/${micros(r.natural.cpu)} µs`, right: true },
  { title: 'server cpu ×', value: (r) => ratioCell(r, 'cpuTimes'), right: true },
  {
    title: 'db cpu/req',
    value: (r) => (r.dbCpuTimes === undefined ? '—' : `${micros(r.crudsmith.dbCpu)}/${micros(r.natural.dbCpu)} µs`),
    right: true,
  },
  { title: 'db cpu ×', value: (r) => ratioCell(r, 'dbCpuTimes'), right: true },
];

export const httpTaughtSuite: Suite<TaughtRow> = {
  name: 'http-taught',
  table: (rows) =>
    [
      formatTable(columns, rows),
      '',
      `crudsmith: the item declared as the README teaches, on each adapter; natural: hand-written + knex (lists ORDER BY price alone);`,
      `${ROWS.toLocaleString('en-US')} rows, ${INDEX_NAMES[INDEX]}; every server of an operation loaded in the same rotating rounds`,
      'ratio: crudsmith req/s ÷ the natural Koa floor req/s, the median of the per-round ratios (middle half: their quartiles)',
      "÷ own floor: ÷ the natural floor in the adapter's own framework; ÷ Feathers: ÷ Feathers 5 (Koa); ÷ Nest: ÷ NestJS 11 +",
      '@dataui/crud + TypeORM (Express); targets ≥ 1.0 (natural), ≥ 1.3 (Feathers), ≥ 3 (Nest); queries/req: crudsmith/natural/Feathers/Nest',
      "server cpu ×: crudsmith ÷ natural Koa CPU of the server's process per request; db cpu ×: the same for its PostgreSQL",
      'backends (from /proc, PostgreSQL on this machine only); both the median of the per-round ratios (lower is better)',
      ...(rows.some((r) => r.runs)
        ? [
            "several runs: each ratio the median of the runs' ratios, each run's in brackets; req/s, CPU and middle half the runs' medians",
          ]
        : []),
    ].join('\n'),
  async run() {
    if (TAUGHT_PEERS.length > 0) installPeers();
    const { warmupSeconds, rounds, roundSeconds } = defaultHttpOptions;
    console.log(
      `  per row ${warmupSeconds} s warm-up and ${rounds} rounds of ${roundSeconds} s per server, the servers' order rotating`,
    );
    const rows: TaughtRow[] = [];
    for (const engine of ENGINES) await measureEngine(engine, rows);
    return rows;
  },
  merge: mergeRuns,
};
