import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';

/**
 * A knex instance for DATABASE_URL (postgres:// or mysql://), or the embedded SQLite
 * file `<dataDir>/crudsmith.sqlite3` when it is unset.
 */
export function openDatabase(settings: { databaseUrl?: string; dataDir: string }): Knex {
  const url = settings.databaseUrl;
  if (!url) {
    mkdirSync(settings.dataDir, { recursive: true });
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(settings.dataDir, 'crudsmith.sqlite3') },
      useNullAsDefault: true,
    });
  }
  const { protocol } = new URL(url);
  if (protocol === 'postgres:' || protocol === 'postgresql:') return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 10 } });
  if (protocol === 'mysql:' || protocol === 'mariadb:') {
    const u = new URL(url);
    return knexFactory({
      client: 'mysql2',
      connection: {
        host: u.hostname,
        port: Number(u.port || 3306),
        user: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        database: u.pathname.slice(1),
        // Datetimes travel in UTC, whatever the server's or the process's zone.
        timezone: 'Z',
        charset: 'utf8mb4',
      },
      pool: { min: 0, max: 10 },
    });
  }
  throw new Error(`DATABASE_URL must start with postgres:// or mysql:// (got ${protocol})`);
}
