import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { useReplicas, withDatabaseTimeouts, type DatabaseTimeouts } from '@crudsmith/core';
import { OutageLog } from './outage-log';

/**
 * A knex instance for DATABASE_URL (postgres:// or mysql://), or the embedded SQLite
 * file `<dataDir>/crudsmith.sqlite3` when it is unset. A server's connect, pool and
 * statement waits are bounded (`databaseTimeouts`), so an outage answers 503, never hangs;
 * knex's connection warnings go to `log` as one line a minute at most, without a stack.
 */
export function openDatabase(
  settings: { databaseUrl?: string; dataDir: string; databaseTimeouts?: DatabaseTimeouts },
  log?: (line: string) => void,
): Knex {
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
  const timeouts = settings.databaseTimeouts;
  // knex warns once per failed connection attempt, with a stack: an outage would flood the log.
  const warnings = new OutageLog('Database (DATABASE_URL)', log);
  const quiet = { log: { warn: (message: string) => warnings.failed(message) } };
  if (protocol === 'postgres:' || protocol === 'postgresql:')
    return knexFactory(
      withDatabaseTimeouts({ client: 'pg', connection: url, pool: { min: 0, max: 10 }, ...quiet }, timeouts),
    );
  if (protocol === 'mysql:' || protocol === 'mariadb:') {
    const u = new URL(url);
    return knexFactory(
      withDatabaseTimeouts(
        {
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
          ...quiet,
        },
        timeouts,
      ),
    );
  }
  throw new Error(`DATABASE_URL must start with postgres:// or mysql:// (got ${protocol})`);
}

/**
 * The read replicas of DATABASE_REPLICA_URL, each bounded like the primary, with the
 * repository's reads on `primary` sent to them under the replica rule (`useReplicas`).
 */
export function openReplicas(
  primary: Knex,
  settings: { databaseReplicaUrls: string[]; replicaMaxLagMs: number; databaseTimeouts?: DatabaseTimeouts },
  log?: (line: string) => void,
): Knex[] {
  const replicas = settings.databaseReplicaUrls.map((url, i) => {
    const warnings = new OutageLog(`Read replica ${i + 1} (DATABASE_REPLICA_URL)`, log);
    return knexFactory(
      withDatabaseTimeouts(
        {
          client: 'pg',
          connection: url,
          pool: { min: 0, max: 10 },
          log: { warn: (message: string) => warnings.failed(message) },
        },
        settings.databaseTimeouts,
      ),
    );
  });
  useReplicas(primary, replicas, { maxLagMs: settings.replicaMaxLagMs });
  return replicas;
}
