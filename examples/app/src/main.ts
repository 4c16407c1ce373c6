import 'reflect-metadata';
import pino from 'pino';
import { gracefulShutdown, requestLog, ShutdownState } from '@crudsmith/core/server';
import { buildApp } from './app';
import { serve } from './server';
import { readSettings } from './config';
import { openDatabase, openReplicas } from './database';
import { ensureFirstSuperuser } from './first-superuser';
import { ensureFirstAdmin } from './admin';
import { openSessionStore } from './session-store';
import { RedisChallengeStore } from '@crudsmith/account/redis';
import { openRateLimitRedis } from './rate-limit';
import { checkServices, StartupError } from './startup-checks';
import { openStorage } from './storage';

// `npm start`: migrate, then serve the example application.
async function main(): Promise<void> {
  const settings = readSettings();
  const logger = pino({ level: settings.logLevel });
  const requests = requestLog({ logger });
  const shutdown = new ShutdownState();
  const knex = openDatabase(settings, (line) => logger.warn(line));
  // A replica down at start is no reason to refuse: reads go to the primary until it answers.
  const replicas = openReplicas(knex, settings, (line) => logger.warn(line));
  const sessionRedis = settings.redisClusterNodes
    ? { cluster: settings.redisClusterNodes }
    : settings.redisUrl
      ? { url: settings.redisUrl }
      : undefined;
  const sessions = openSessionStore(sessionRedis, settings.redisSessionPrefix, {
    timeouts: settings.redisTimeouts,
    log: (line) => logger.warn(line),
    waitReplicas: settings.redisWaitReplicas,
  });
  const counters = openRateLimitRedis(settings.rateLimit);
  // Every configured service answers, or the start fails naming the setting to fix.
  await checkServices({
    knex,
    databaseUrl: settings.databaseUrl,
    sessions: sessions &&
      sessionRedis && {
        client: sessions.client,
        where: sessionRedis,
        timeoutMs: settings.redisTimeouts.connectMs + 1000,
      },
    counters: counters &&
      settings.rateLimit.redis && { client: counters.client, connection: settings.rateLimit.redis, timeoutMs: 3000 },
  });
  const readinessChecks = {
    ...(sessions && { sessions: () => sessions.ping() }),
    ...(counters && { rateLimitRedis: () => counters.client.ping() }),
  };
  const app = buildApp(knex, {
    // With REDIS_URL or REDIS_CLUSTER_NODES, two-factor challenges live in the sessions' Redis too.
    ...settings,
    sessionStore: sessions?.store,
    challengeStore: sessions && new RedisChallengeStore(sessions.client),
    rateLimit: { ...settings.rateLimit, redis: counters?.client },
    readinessChecks,
    // Errors no route expected go on their request's line (one stack, with the request id), not a line of their own.
    shutdown,
    requestLog: requests,
    logger: requests.errors,
    // Uploads in the S3 bucket of STORAGE_URL, else under DATA_DIR.
    storage: openStorage(settings.s3Storage, settings.dataDir),
  });
  await app.start(knex);
  await ensureFirstSuperuser(knex, app.auth, settings.admin);
  await ensureFirstAdmin(app.admin, settings.admin);
  const server = await serve(app, { ...settings, logger: requests.errors });
  requests.attach(server.server);
  // SIGTERM/SIGINT: /readyz turns 503 (still accepting for the pre-stop delay), requests drain until the deadline, then each client closes in order; a second signal exits at once.
  gracefulShutdown(server.server, {
    state: shutdown,
    preStopDelayMs: settings.shutdownPreStopDelayMs,
    timeoutMs: settings.shutdownTimeoutMs,
    logger,
    close: {
      plugins: () => app.close(),
      sessions: () => sessions?.close(),
      rateLimitRedis: () => counters?.close(),
      database: () => knex.destroy(),
      replicas: () => Promise.all(replicas.map((replica) => replica.destroy())),
    },
  });
  console.log(
    `crudsmith example listening on ${server.url} (adapter: ${settings.adapter}, database: ${settings.databaseUrl ? new URL(settings.databaseUrl).protocol.replace(':', '') : 'sqlite'})`,
  );
  console.log(`  try: curl ${server.url}/api/v1/items`);
}

main().catch((error) => {
  // A setting to fix is one line that names it; anything else keeps its stack.
  console.error(error instanceof StartupError ? `crudsmith example cannot start: ${error.message}` : error);
  process.exit(1);
});
