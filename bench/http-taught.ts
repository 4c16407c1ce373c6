import { deepStrictEqual } from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { backendCpu, withApplicationName } from './lib/backend-cpu';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import type { ItemsIndex } from './lib/items';
import { median } from './lib/measure';
import type { Suite } from './lib/suite';
import { formatOps, formatTable, type Column } from './lib/table';
import { FRAMEWORKS, type Framework } from './http/protocol';
import { defaultHttpOptions, measureSides, ratioOf, sideMedians, type SideResult, type Target } from './http/rounds';
import { operations, prepare, traced, warmUpAll, type Operation } from './http/scenario';
import { startServer, stopServers, type ServerProcess } from './http/server';

// The setup users have: the item declared the way the README teaches (taught-app.ts: an
// objection model with @Crud, @SoftDelete and @Filter, class-validator schemas, a registry,
// bootstrap), on a table with an ordinary index on the filtered column alone (not one
// shaped after crudsmith's statements), 100,000 rows. Each adapter against one natural
// floor, hand-written Koa + knex whose lists order by the price alone; server CPU and,
// on PostgreSQL, the database's own CPU per request.

const ROWS = Number(process.env.BENCH_TAUGHT_ROWS) || 100_000;
/**
 * `ordinary` (on category alone) unless BENCH_TAUGHT_INDEX asks for `shaped`, the HTTP
 * suite's `(category, is_deleted, price)`, or `documented`, the one the docs name.
 */
const INDEX: ItemsIndex =
  (['shaped', 'documented'] as const).find((i) => i === process.env.BENCH_TAUGHT_INDEX) ?? 'ordinary';
/** The rows measured, by their first word (read, list, create, update). */
const KINDS = (process.env.BENCH_TAUGHT_OPERATIONS ?? 'read,list,create,update').split(',');

/** One row: an operation through one adapter against the natural Koa floor. */
interface TaughtRow {
  engine: string;
  framework: string;
  operation: string;
  crudsmith: SideResult;
  natural: SideResult;
  ratio: number;
  ratioRange: [number, number];
  /** crudsmith ÷ natural server CPU per request, the median of the per-round ratios. */
  cpuTimes: number;
  /** crudsmith ÷ natural database CPU per request, the median of the per-round ratios. */
  dbCpuTimes?: number;
  statements: { crudsmith: number; natural: number };
}

const INDEX_NAMES: Record<ItemsIndex, string> = {
  ordinary: 'an index on category alone',
  shaped: 'the index (category, is_deleted, price)',
  documented: 'the index (category, is_deleted, price), its price NULLS FIRST on PostgreSQL',
};

const kindOf = (operation: Operation) => operation.name.split(' ')[0];

/** Fails unless both sides answer the same (bar a created row's own values); answers the statements each sent. */
async function checkSame(
  crudsmith: ServerProcess,
  natural: ServerProcess,
  operation: Operation,
  label: string,
): Promise<{ crudsmith: number; natural: number }> {
  // Each side its own sequence: the same requests, but a create's names (and so rows) of its own.
  const kinds = [operation.kind(), operation.kind()];
  const statements = { crudsmith: 0, natural: 0 };
  const TRIES = 5;
  for (let i = 0; i < TRIES; i++) {
    const answers = [];
    for (const [side, server] of [crudsmith, natural].entries()) {
      const answer = await traced(server, { method: kinds[side].method, ...kinds[side].next() });
      statements[side === 0 ? 'crudsmith' : 'natural'] += answer.sql.length / TRIES;
      const json = answer.json as Record<string, unknown> | null;
      if (kindOf(operation) === 'create' && json) for (const key of ['id', 'name', 'created_at']) delete json[key];
      answers.push({
        status: answer.status,
        json: kindOf(operation) === 'list' ? unordered(json) : json,
        etag: kindOf(operation) === 'read' ? answer.etag : null,
      });
    }
    deepStrictEqual(answers[0], answers[1], `${label}: the sides answer differently`);
  }
  return statements;
}

type Item = { id: number; price: number | null };

/**
 * A list answer with rows of equal price in id order: the floor orders by the price alone,
 * so its ties come in any order. A tie across the page's first or last row may even put
 * different rows on the page: those are compared by their price alone.
 */
function unordered(json: Record<string, unknown> | null): unknown {
  const data = json?.data as Item[] | undefined;
  if (!data) return json;
  const edges = new Set([data[0]?.price, data[data.length - 1]?.price]);
  const rows = [...data].sort((a, b) => (b.price ?? -Infinity) - (a.price ?? -Infinity) || a.id - b.id);
  return { ...json, data: rows.map((row) => (edges.has(row.price) ? { price: row.price } : row)) };
}

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
    // Each server's connections carry its name, so its PostgreSQL backends can be told apart.
    const start = async (name: string, config: { framework: Framework; side: 'taught' | 'natural' }) => {
      const connection = engine === 'postgres' ? withApplicationName(db.connection, name) : db.connection;
      const server = await startServer({ ...config, engine, connection, plainSort: true });
      children.push(server.child);
      const dbCpu = engine === 'postgres' ? await backendCpu(db.knex, name) : undefined;
      return { server, target: { ...server, dbCpu } as Target };
    };
    const natural = await start('bench-natural-koa', { framework: 'koa', side: 'natural' });
    const taught = {} as Record<Framework, Awaited<ReturnType<typeof start>>>;
    for (const framework of FRAMEWORKS)
      taught[framework] = await start(`bench-taught-${framework}`, { framework, side: 'taught' });
    for (const { server } of [natural, ...Object.values(taught)]) await warmUpAll(server, ops);
    for (const framework of FRAMEWORKS) {
      for (const operation of ops) {
        const label = `${engine} ${framework} ${operation.name}`;
        const statements = await checkSame(taught[framework].server, natural.server, operation, label);
        // The backends exist once each side has served: read their CPU from here on.
        for (const side of [natural, taught[framework]])
          if (engine === 'postgres' && !side.target.dbCpu)
            side.target.dbCpu = await backendCpu(
              db.knex,
              `bench-${side === natural ? 'natural-koa' : `taught-${framework}`}`,
            );
        const rounds = await measureSides({ crudsmith: taught[framework].target, natural: natural.target }, () =>
          operation.kind(),
        );
        const { ratio, ratioRange } = ratioOf(rounds.crudsmith, rounds.natural);
        const row: TaughtRow = {
          engine,
          framework,
          operation: operation.name,
          crudsmith: sideMedians(rounds.crudsmith),
          natural: sideMedians(rounds.natural),
          ratio,
          ratioRange,
          cpuTimes: perRound(rounds.crudsmith, rounds.natural, (r) => r.cpu)!,
          dbCpuTimes: perRound(rounds.crudsmith, rounds.natural, (r) => r.dbCpu),
          statements,
        };
        console.log(
          `  ${label}: ratio ${ratio.toFixed(2)}, server cpu ×${row.cpuTimes.toFixed(2)}, database cpu ×${row.dbCpuTimes?.toFixed(2) ?? '—'}`,
        );
        rows.push(row);
      }
    }
  } finally {
    await stopServers(children);
    await db.close();
  }
}

const micros = (value: number | undefined) => (value === undefined ? '—' : String(Math.round(value)));

const columns: Column<TaughtRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'adapter', value: (r) => r.framework },
  { title: 'operation', value: (r) => r.operation },
  { title: 'crudsmith req/s', value: (r) => formatOps(r.crudsmith.rps), right: true },
  { title: 'natural req/s', value: (r) => formatOps(r.natural.rps), right: true },
  { title: 'ratio', value: (r) => r.ratio.toFixed(2), right: true },
  { title: 'middle half', value: (r) => `${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}` },
  { title: 'queries/req', value: (r) => `${r.statements.crudsmith}/${r.statements.natural}`, right: true },
  { title: 'server cpu/req', value: (r) => `${micros(r.crudsmith.cpu)}/${micros(r.natural.cpu)} µs`, right: true },
  { title: 'server cpu ×', value: (r) => r.cpuTimes.toFixed(2), right: true },
  {
    title: 'db cpu/req',
    value: (r) => (r.dbCpuTimes === undefined ? '—' : `${micros(r.crudsmith.dbCpu)}/${micros(r.natural.dbCpu)} µs`),
    right: true,
  },
  { title: 'db cpu ×', value: (r) => r.dbCpuTimes?.toFixed(2) ?? '—', right: true },
];

export const httpTaughtSuite: Suite<TaughtRow> = {
  name: 'http-taught',
  table: (rows) =>
    [
      formatTable(columns, rows),
      '',
      `crudsmith: the item declared as the README teaches, on each adapter; natural: hand-written Koa + knex (lists ORDER BY price alone);`,
      `${ROWS.toLocaleString('en-US')} rows, ${INDEX_NAMES[INDEX]}`,
      'ratio: crudsmith req/s ÷ natural req/s, the median of the per-round ratios (middle half: their quartiles)',
      "server cpu ×: crudsmith ÷ natural CPU of the server's process per request; db cpu ×: the same for its PostgreSQL",
      'backends (from /proc, PostgreSQL on this machine only); both the median of the per-round ratios (lower is better)',
    ].join('\n'),
  async run() {
    const { warmupSeconds, rounds, roundSeconds } = defaultHttpOptions;
    console.log(`  per row ${warmupSeconds} s warm-up and ${rounds} rounds of ${roundSeconds} s per server`);
    const rows: TaughtRow[] = [];
    for (const engine of ENGINES) await measureEngine(engine, rows);
    return rows;
  },
};
