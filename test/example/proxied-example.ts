// The example app served in this process on a database reached through a TCP proxy the
// test controls, so an outage (refusal, network cut) can be staged without stopping the
// real server other suites share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { DatabaseTimeouts } from '@crudsmith/core';
import { buildApp, type BuildOptions, type ExampleApp } from '../../examples/app/src/app';
import { openDatabase as openExampleDatabase } from '../../examples/app/src/database';
import { ensureFirstSuperuser } from '../../examples/app/src/first-superuser';
import { serve, type AdapterName } from '../../examples/app/src/server';
import { openDatabase, type Engine, type TestDatabase } from '../fixtures/db';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { Client } from '../plugins/account/fixture';

export const ADMIN_PASSWORD = 'the admin passphrase';

/** Short bounds, so a test sees the timeouts at work in about a second. */
export const SHORT_TIMEOUTS: Required<DatabaseTimeouts> = {
  connectMs: 1000,
  acquireMs: 1500,
  statementMs: 1000,
  unresponsiveMs: 1000,
};

/** A running example whose database sits behind `proxy`. */
export interface ProxiedExample {
  db: TestDatabase;
  proxy: TcpProxy;
  app: ExampleApp;
  /** The app's own knex, through the proxy. */
  knex: Knex;
  base: string;
  client(): Client;
  close(): Promise<void>;
}

/** Starts the example on a fresh database of `engine` (a server engine), reached through a proxy, with `admin` as first superuser. */
export async function startProxiedExample(
  engine: Engine,
  adapter: AdapterName,
  options: { timeouts?: DatabaseTimeouts; build?: BuildOptions } = {},
): Promise<ProxiedExample> {
  const db = await openDatabase(engine);
  const direct = new URL(db.url!);
  const proxy = await TcpProxy.start({
    host: direct.hostname,
    port: Number(direct.port || (engine === 'postgres' ? 5432 : 3306)),
  });
  const proxied = new URL(direct);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-outage-'));
  const knex = openExampleDatabase({
    databaseUrl: proxied.toString(),
    dataDir,
    databaseTimeouts: { ...SHORT_TIMEOUTS, ...options.timeouts },
  });
  const app = buildApp(knex, {
    secretKey: 'example-test-secret-0123456789abcdefghij',
    bcryptRounds: 4,
    dataDir,
    ...options.build,
  });
  await app.start(knex);
  await ensureFirstSuperuser(
    knex,
    app.auth,
    { username: 'admin', email: 'admin@example.com', password: ADMIN_PASSWORD },
    () => {},
  );
  const server = await serve(app, { adapter, host: '127.0.0.1', port: 0 });
  return {
    db,
    proxy,
    app,
    knex,
    base: server.url,
    client: () => new Client(server.url),
    async close() {
      await proxy.set('forward');
      await server.close();
      await app.close();
      await knex.destroy();
      await proxy.close();
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
