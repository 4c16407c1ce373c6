import 'reflect-metadata';
import { migrationSource } from '@crudsmith/core';
import { createKoaApp } from './app';
import { readSettings } from './config';
import { openDatabase } from './database';
import { appMigrations } from './migrations/app';

// `npm start`: migrate, then serve the example application.
async function main(): Promise<void> {
  const settings = readSettings();
  const knex = openDatabase(settings);
  await knex.migrate.latest({ migrationSource: migrationSource(appMigrations) });
  if (settings.adapter !== 'koa') throw new Error(`ADAPTER=${settings.adapter} is not available yet; use koa`);
  const app = createKoaApp(knex, { trustedProxies: settings.trustedProxies });
  const server = app.listen(settings.port, settings.host, () => {
    console.log(`crudsmith example listening on http://${settings.host}:${settings.port} (database: ${settings.databaseUrl ? new URL(settings.databaseUrl).protocol.replace(':', '') : 'sqlite'})`);
    console.log(`  try: curl http://${settings.host}:${settings.port}/api/v1/items`);
  });
  const stop = () => server.close(() => void knex.destroy().then(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
