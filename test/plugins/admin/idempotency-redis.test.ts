// A model whose idempotency keys live in Redis, on the admin's JSON API: the keys cannot
// share the write's transaction, so a keyed create is written on its own and its event
// follows its commit. A repeat is still replayed: one row, one event, the key in Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crud } from '@crudsmith/core';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { deleteKeys, describeRedis, testClient, uniquePrefix } from '../rate-limit/redis-fixture';
import { startAdminApp, type AdminEnv, type Client } from './fixture';
import { Order, OrderCreate, OrderUpdate, orderMigrations, ordersView } from './orders';

const prefix = uniquePrefix();
const redis = testClient();

@Crud({ createSchema: OrderCreate, updateSchema: OrderUpdate, idempotency: { redis, redisPrefix: prefix } })
class RedisKeyedOrder extends Order {}

describeRedis("the admin's JSON API over a model keeping its idempotency keys in Redis", () => {
  afterAll(async () => {
    await deleteKeys(prefix);
    redis.disconnect();
  });

  describe.each(ENGINES)('on %s', (engine) => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(
        koaHarness,
        engine,
        { models: { orders: { ...ordersView, model: RedisKeyedOrder, import: true } }, eventIntegration: true },
        { migrations: [orderMigrations] },
      );
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('replays a repeated key: one row, one event, the key kept in Redis', async () => {
      const key = `one-rug-${engine}`;
      const create = () =>
        client.request('POST', '/admin/crud/orders', {
          json: { product: 'rug' },
          headers: { 'x-csrf-token': client.csrf, 'idempotency-key': key },
        });
      const [first, second] = [await create(), await create()];
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.json).toEqual(first.json);
      expect(await env.db.knex('orders').where({ product: 'rug' })).toHaveLength(1);
      const events = await env.db.knex('admin_events').where({ event_type: 'create', model: 'orders' });
      expect(events.filter((e) => JSON.parse(e.details).record.product === 'rug')).toHaveLength(1);
      // One key per engine run so far, and no key table in the database.
      expect(await redis.keys(`${prefix}*`)).toHaveLength(ENGINES.indexOf(engine) + 1);
      expect(await env.db.knex.schema.hasTable('crudsmith_idempotency_keys')).toBe(false);
    });
  });
});
