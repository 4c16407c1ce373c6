import 'reflect-metadata';
import { buildApp, createKoaApp } from './app';
import { readSettings } from './config';
import { openDatabase } from './database';
import { ensureFirstSuperuser } from './first-superuser';
import { openSessionStore } from './session-store';

// `npm start`: migrate, then serve the example application.
async function main(): Promise<void> {
  const settings = readSettings();
  const knex = openDatabase(settings);
  const sessions = openSessionStore(settings.redisUrl);
  const app = buildApp(knex, { ...settings, sessionStore: sessions?.store });
  await app.start(knex);
  await ensureFirstSuperuser(knex, app.auth, settings.admin);
  if (settings.adapter !== 'koa') throw new Error(`ADAPTER=${settings.adapter} is not available yet; use koa`);
  const server = createKoaApp(app, { trustedProxies: settings.trustedProxies }).listen(settings.port, settings.host, () => {
    console.log(`crudsmith example listening on http://${settings.host}:${settings.port} (database: ${settings.databaseUrl ? new URL(settings.databaseUrl).protocol.replace(':', '') : 'sqlite'})`);
    console.log(`  try: curl http://${settings.host}:${settings.port}/api/v1/items`);
  });
  const stop = () => server.close(() => void app.close().then(() => sessions?.close()).then(() => knex.destroy()).then(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
