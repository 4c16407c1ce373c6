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
  close(): Promise<void>;
}

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const POSTGRES_DB = 'crudsmith_bench';

/** A SQLite file in a fresh temp directory (removed on close). */
export async function openSqlite(): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'crudsmith-bench-'));
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(dir, 'bench.sqlite') }, useNullAsDefault: true });
  return {
    engine: 'sqlite',
    knex,
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
    console.log(`PostgreSQL unreachable at ${where.toString()} (${(error as Error).message}): continuing with SQLite only.`);
    return undefined;
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${POSTGRES_DB}`;
  const knex = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 2, max: 4 } });
  return {
    engine: 'postgres',
    knex,
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

/** The engines every suite runs on, in order. */
export const ENGINES: Engine[] = ['sqlite', 'postgres'];
