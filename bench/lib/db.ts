import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

/** The engines a suite runs on. */
export type Engine = 'sqlite' | 'postgres';

/** A database of the bench's own, and the way to drop it. */
export interface BenchDatabase {
  engine: Engine;
  knex: Knex;
  /** What another process passes to `connect` to open the same database. */
  connection: string;
  close(): Promise<void>;
}

/** A knex instance on an engine's database, as the bench opens it in every process. */
export function connect(engine: Engine, connection: string): Knex {
  return engine === 'sqlite'
    ? knexFactory({ client: 'better-sqlite3', connection: { filename: connection }, useNullAsDefault: true })
    : knexFactory({ client: 'pg', connection, pool: { min: 2, max: 4 } });
}

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// BENCH_POSTGRES_DB names another, so that two runs on one server never drop each other's.
const POSTGRES_DB = process.env.BENCH_POSTGRES_DB ?? 'crudsmith_bench';

/** A SQLite file in a fresh temp directory (removed on close). */
export async function openSqlite(): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'crudsmith-bench-'));
  const connection = join(dir, 'bench.sqlite');
  const knex = connect('sqlite', connection);
  return {
    engine: 'sqlite',
    knex,
    connection,
    async close() {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A freshly created `crudsmith_bench` database (dropped first if a previous run left it,
 * dropped again on close), or undefined when PostgreSQL is unreachable.
 */
export async function openPostgres(): Promise<BenchDatabase | undefined> {
  try {
    await admin(`DROP DATABASE IF EXISTS ${POSTGRES_DB} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${POSTGRES_DB}`);
  } catch (error) {
    const where = new URL(POSTGRES_URL);
    where.password = where.password ? '***' : '';
    console.log(
      `PostgreSQL unreachable at ${where.toString()} (${(error as Error).message}): continuing with SQLite only.`,
    );
    return undefined;
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${POSTGRES_DB}`;
  const connection = url.toString();
  const knex = connect('postgres', connection);
  return {
    engine: 'postgres',
    knex,
    connection,
    async close() {
      await knex.destroy();
      await admin(`DROP DATABASE IF EXISTS ${POSTGRES_DB} WITH (FORCE)`);
    },
  };
}

/** Opens the engine's bench database, or answers undefined when it is unreachable. */
export function openDatabase(engine: Engine): Promise<BenchDatabase | undefined> {
  return engine === 'sqlite' ? openSqlite() : openPostgres();
}

/** The engines every suite runs on, in order (`BENCH_ENGINES=sqlite` to run fewer). */
export const ENGINES: Engine[] = (['sqlite', 'postgres'] as const).filter((e) =>
  (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').includes(e),
);
