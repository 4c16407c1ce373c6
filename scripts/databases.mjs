// Which SQL engines can the suites use? SQLite (in memory) always; PostgreSQL and
// MariaDB when their server answers. URLs come from the environment so another machine
// can point elsewhere.
import pg from 'pg';
import mysql from 'mysql2/promise';

export const serverUrls = {
  postgres: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  mysql: process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
};

async function probePostgres() {
  const client = new pg.Client({ connectionString: serverUrls.postgres, connectionTimeoutMillis: 3000 });
  await client.connect();
  await client.query('select 1');
  await client.end();
}

async function probeMysql() {
  const conn = await mysql.createConnection({ uri: serverUrls.mysql, connectTimeout: 3000 });
  await conn.query('select 1');
  await conn.end();
}

/** Tries each server once; answers which engines are usable and why others are not. */
export async function probeDatabases() {
  const wanted = (process.env.TEST_DATABASES ?? 'sqlite,postgres,mysql')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const probes = { sqlite: async () => {}, postgres: probePostgres, mysql: probeMysql };
  const reachable = [];
  const missing = [];
  for (const name of wanted) {
    const probe = probes[name];
    if (!probe) throw new Error(`Unknown database in TEST_DATABASES: ${name}`);
    try {
      await probe();
      reachable.push(name);
    } catch (error) {
      missing.push({ name, error: error.message });
    }
  }
  return { reachable, missing };
}
