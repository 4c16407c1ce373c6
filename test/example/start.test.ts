import { describe, expect, it } from 'vitest';
import { spawnApp } from './spawn-app';

// `npm start` with ADAPTER=koa|express|fastify: the same example app, migrated and served
// by each adapter, answers the same way (issue #4: "the example app starts on each").
describe.each(['koa', 'express', 'fastify'])('the example app started with ADAPTER=%s', (adapter) => {
  it('migrates, serves /api/v1/items and answers errors as JSON `detail`', async () => {
    const app = await spawnApp({ ADAPTER: adapter });
    try {
      expect(app.output()).toContain(`adapter: ${adapter}`);
      const created = await fetch(`${app.url}/api/v1/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Anvil', price: 80 }),
      });
      expect(created.status).toBe(201);
      const item = (await created.json()) as { id: number };
      const read = await fetch(`${app.url}/api/v1/items/${item.id}`);
      expect(await read.json()).toMatchObject({ id: item.id, name: 'Anvil', price: 80 });

      const unknown = await fetch(`${app.url}/no/such/path`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ detail: 'Not Found' });

      const malformed = await fetch(`${app.url}/api/v1/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toHaveProperty('detail');
    } finally {
      await app.stop();
    }
  }, 60_000);
});

describe('the example app with an unknown ADAPTER', () => {
  it('refuses to start and names the valid adapters', async () => {
    await expect(spawnApp({ ADAPTER: 'hapi' })).rejects.toThrow(/ADAPTER=hapi is unknown; use koa, express or fastify/);
  }, 60_000);
});
