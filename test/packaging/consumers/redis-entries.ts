// An ES module consumer of the /redis entries, compiled by the packaging test with module
// "nodenext" and run by plain node: rate-limit counters in a RedisStore (the plugin's
// limit-change channel on its client) and account sessions in a RedisSessionStore, as an
// app with ioredis wires them. The Redis at REDIS_PORT is not there: nothing waits for it,
// and the store's one increment answers at once that it is unavailable.
import 'reflect-metadata';
import knex from 'knex';
import { Model } from 'objection';
import { account } from '@crudsmith/account';
import { RedisSessionStore } from '@crudsmith/account/redis';
import { rateLimit, rateLimitSettings, StoreUnavailableError } from '@crudsmith/rate-limit';
import { createRedisClient, RedisInvalidation, RedisStore } from '@crudsmith/rate-limit/redis';

class User extends Model {
  static override tableName = 'users';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      username: { type: 'string' },
      hashed_password: { type: ['string', 'null'] },
      token_version: { type: 'integer' },
    },
  };
}

async function main(): Promise<void> {
  const settings = rateLimitSettings({ REDIS_URL: `redis://127.0.0.1:${process.env.REDIS_PORT ?? 6379}` });
  const client = createRedisClient(settings.redis!, { lazyConnect: true });
  client.on('error', () => {});
  const db = knex({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  const store = new RedisStore(client, { commandTimeoutMs: 200 });
  const limits = rateLimit({ knex: db, store, paths: ['/api/items'] });
  const auth = account({
    knex: db,
    userModel: User,
    secretKey: 'a consumer secret that is long enough to sign tokens',
    path: '/auth',
    session: { store: new RedisSessionStore(client, { prefix: 'consumer:session:' }) },
  });
  const bus = new RedisInvalidation({ publisher: client, onInvalidate: () => limits.cache.invalidate() });
  let hit: string;
  try {
    hit = String(await store.hit('consumer', 60));
  } catch (error) {
    hit = error instanceof StoreUnavailableError ? 'StoreUnavailableError' : String(error);
  }
  console.log(
    JSON.stringify({
      limiterStore: limits.store === store,
      sessions: auth.sessionManager !== null,
      channel: bus.channel,
      hit,
    }),
  );
  client.disconnect();
  await db.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
