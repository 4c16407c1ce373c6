import { deepStrictEqual } from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import type { Suite } from './lib/suite';
import { CONNECTIONS, type RequestKind } from './http/load';
import { FRAMEWORKS, SIDES, type Framework, type Side } from './http/protocol';
import {
  defaultHttpOptions,
  httpTable,
  measureSides,
  ratioOf,
  sideMedians,
  type HttpRow,
  type SideResult,
  type Statements,
} from './http/rounds';
import { OPERATIONS, operations, prepare, traced, warmUpAll, type Operation } from './http/scenario';
import { SERVER_WARMUP, SERVER_WARMUP_MAX_S, startServer, stopServers, type ServerProcess } from './http/server';

// The generated endpoints over HTTP: each adapter (Koa, Express, Fastify) against two
// hand-written apps in the same framework: the natural floor, as a person writes it
// (bench/http/natural.ts), which the ratios are taken against, and the same-SQL floor
// (bench/http/floor.ts), which sends crudsmith's own statements. Every server runs in its
// own process; autocannon runs here. All three answer the same JSON, and the same-SQL
// floor sends the same SQL as crudsmith (checked before measuring); the statements each
// sends per request are counted and printed.

/**
 * Fails the run unless every side answers the same status and JSON (bar the created row's
 * own values) and the same-SQL floor sends crudsmith's SQL; answers the statements each
 * side sent per request.
 */
async function checkSame(
  servers: Record<Side, ServerProcess>,
  operation: Operation,
  label: string,
): Promise<Statements> {
  const sides = sidesOf(operation);
  const kinds = Object.fromEntries(sides.map((side) => [side, kindFor(operation, side)])) as Record<Side, RequestKind>;
  const statements: Statements = { crudsmith: 0, natural: 0 };
  const TRIES = 5;
  for (let i = 0; i < TRIES; i++) {
    const answers = {} as Record<Side, { status: number; json: unknown; etag: string | null; sql: string[] }>;
    for (const side of sides) {
      answers[side] = await traced(servers[side], { method: kinds[side].method, ...kinds[side].next() });
      statements[side] = (statements[side] ?? 0) + answers[side].sql.length / TRIES;
      const json = answers[side].json as Record<string, unknown>;
      // A created row's own values differ from side to side; so do the tags of answers other than a read's.
      if (['create', 'bulk'].includes(kindOf(operation)))
        for (const row of Array.isArray(json) ? json : [json]) for (const key of CREATED_OWN) delete row[key];
      if (!['read', 'conditional'].includes(kindOf(operation))) answers[side].etag = null;
      // Each side's cursor is its own: the page's rows and whether more follow must agree.
      if (operation.keyset) json.next_cursor = json.next_cursor !== null;
    }
    if (answers.floor)
      deepStrictEqual(
        answers.crudsmith.sql,
        answers.floor.sql,
        `${label}: crudsmith and the same-SQL floor send different SQL`,
      );
    for (const side of sides.filter((s) => s !== 'crudsmith')) {
      const { status, json, etag } = answers[side];
      deepStrictEqual(
        { status: answers.crudsmith.status, json: answers.crudsmith.json, etag: answers.crudsmith.etag },
        { status, json, etag },
        `${label}: crudsmith and the ${side} floor answer differently`,
      );
    }
  }
  return statements;
}

/** A created row's values of its own: left out when comparing answers. */
const CREATED_OWN = ['id', 'name', 'created_at'];

/** A row's first word: what `BENCH_HTTP_OPERATIONS` names it by. */
const kindOf = (operation: Operation) => operation.name.split(' ')[0];

/** The sides of a row: the same-SQL floor has no keyset pages, bulk create or export. */
function sidesOf(operation: Operation): Side[] {
  return operation.keyset || operation.sameSqlFloor === false ? ['crudsmith', 'natural'] : [...SIDES];
}

/** A side's requests: the natural floor's keyset pages take the last id seen (`after`), not crudsmith's signed cursor. */
function kindFor(operation: Operation, side: Side): RequestKind {
  const kind = operation.kind();
  if (!operation.keyset || side !== 'natural') return kind;
  return {
    ...kind,
    next: () => {
      const request = kind.next();
      const [path, search] = request.path.split('?');
      const query = new URLSearchParams(search);
      query.delete('cursor');
      // crudsmith's cursors are sealed: the floor takes the id of the row the page follows.
      query.set('after', operation.after ?? '');
      return { ...request, path: `${path}?${query}` };
    },
  };
}

async function measureEngine(engine: Engine, rows: HttpRow[]): Promise<void> {
  const db = await openDatabase(engine);
  if (!db) return;
  const children: ChildProcess[] = [];
  try {
    const ops = operations(await prepare(db.knex, engine));
    const servers = {} as Record<Framework, Record<Side, ServerProcess>>;
    await Promise.all(
      FRAMEWORKS.flatMap((framework) =>
        SIDES.map(async (side) => {
          const server = await startServer({ framework, side, engine, connection: db.connection });
          children.push(server.child);
          (servers[framework] ??= {} as Record<Side, ServerProcess>)[side] = server;
        }),
      ),
    );
    // JIT: crudsmith runs more code than a floor, and V8 optimises it only after many
    // requests; counted, not timed, since a busy machine may serve only a few hundred a
    // second, which would measure crudsmith half-compiled.
    for (const framework of FRAMEWORKS)
      for (const side of SIDES)
        await warmUpAll(
          servers[framework][side],
          ops.filter((op) => sidesOf(op).includes(side)),
        );
    for (const framework of FRAMEWORKS) {
      const pair = servers[framework];
      for (const operation of ops) {
        if (!OPERATIONS.includes(kindOf(operation))) continue;
        const label = `${engine} ${framework} ${operation.name}`;
        const statements = await checkSame(pair, operation, label);
        const targets = Object.fromEntries(sidesOf(operation).map((side) => [side, pair[side]])) as Record<
          Side,
          ServerProcess
        >;
        const rounds: Partial<Record<Side, SideResult[]>> = await measureSides(targets, (side) =>
          kindFor(operation, side),
        );
        const result = {
          ...ratioOf(rounds.crudsmith!, rounds.natural!),
          sameSqlRatio: rounds.floor && ratioOf(rounds.crudsmith!, rounds.floor).ratio,
        };
        console.log(
          `  ${label}: ratio ${result.ratio.toFixed(2)} (same-SQL ${result.sameSqlRatio?.toFixed(2) ?? '—'}), queries/req ${statements.crudsmith}/${statements.natural}/${statements.floor ?? '—'}`,
        );
        rows.push({
          engine,
          framework,
          operation: operation.name,
          crudsmith: sideMedians(rounds.crudsmith!),
          natural: sideMedians(rounds.natural!),
          floor: rounds.floor && sideMedians(rounds.floor),
          statements,
          ...result,
        });
      }
    }
  } finally {
    await stopServers(children);
    await db.close();
  }
}

export const httpSuite: Suite<HttpRow> = {
  name: 'http',
  table: httpTable,
  async run() {
    const { warmupSeconds, rounds, roundSeconds } = defaultHttpOptions;
    console.log(
      `  ${CONNECTIONS} connections; each server warmed up with ${SERVER_WARMUP} requests (${SERVER_WARMUP_MAX_S} s at most), then per row ${warmupSeconds} s warm-up and ${rounds} rounds of ${roundSeconds} s per server`,
    );
    const rows: HttpRow[] = [];
    for (const engine of ENGINES) await measureEngine(engine, rows);
    return rows;
  },
};
