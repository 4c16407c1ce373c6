import 'reflect-metadata';
import { buildApp } from './app';
import { serve } from './server';
import { readSettings } from './config';
import { openDatabase } from './database';
import { ensureFirstSuperuser } from './first-superuser';
import { openSessionStore } from './session-store';
import { openRateLimitRedis } from './rate-limit';

// `npm start`: migrate, then serve the example application.
async function main(): Promise<void> {
  const settings = readSettings();
  const knex = openDatabase(settings);
  const sessions = openSessionStore(settings.redisUrl, settings.redisSessionPrefix);
  const counters = openRateLimitRedis(settings.rateLimit);
  const readinessChecks = {
    ...(sessions && { sessions: () => sessions.ping() }),
    ...(counters && { rateLimitRedis: () => counters.client.ping() }),
  };
  const app = buildApp(knex, { ...settings, sessionStore: sessions?.store, rateLimit: { ...settings.rateLimit, redis: counters?.client }, readinessChecks });
  await app.start(knex);
  await ensureFirstSuperuser(knex, app.auth, settings.admin);
  const server = await serve(app, settings);
  console.log(`crudsmith example listening on ${server.url} (adapter: ${settings.adapter}, database: ${settings.databaseUrl ? new URL(settings.databaseUrl).protocol.replace(':', '') : 'sqlite'})`);
  console.log(`  try: curl ${server.url}/api/v1/items`);
  const stop = () => void server.close().then(() => app.close()).then(() => sessions?.close()).then(() => counters?.close()).then(() => knex.destroy()).then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
