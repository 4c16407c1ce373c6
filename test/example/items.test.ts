import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createKoaApp } from '../../examples/app/src/app';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

// The example application's /api/v1/items, on each engine,
// started the way `npm start` starts it (migrations through bootstrap).
describe.each(ENGINES)('example app /api/v1/items on %s', (engine) => {
  let db: TestDatabase;
  let server: Server;
  let base: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    db = await openDatabase(engine);
    const app = buildApp(db.knex);
    await app.start(db.knex);
    server = createKoaApp(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    for (const item of [
      { name: 'Hammer', category: 'tools', price: 12.5, last_sold: '2024-01-02T03:04:05.678Z' },
      { name: 'Saw', category: 'tools', price: 30 },
      { name: 'Rake', category: 'garden', price: 9.99 },
    ])
      expect((await call('POST', '/items', item)).status).toBe(201);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await db?.destroy();
  });

  it('exports the filtered, sorted items as CSV and NDJSON', async () => {
    const csv = await fetch(`${base}/items/export?format=csv&category=tools&sort=-price`);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="items.csv"');
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0].split(',').slice(0, 2)).toEqual(['id', 'name']);
    expect(lines.slice(1, 3).map((line) => line.split(',')[1])).toEqual(['Saw', 'Hammer']);
    const ndjson = await fetch(`${base}/items/export?format=ndjson&name=Rake`);
    expect(
      (await ndjson.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).name),
    ).toEqual(['Rake']);
  });

  it('creates with 201 and answers the item exactly as a later GET does', async () => {
    const created = await call('POST', '/items', { name: 'Drill', price: 99.95, description: 'cordless' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([
      'category',
      'created_at',
      'description',
      'id',
      'last_sold',
      'name',
      'price',
      'updated_at',
    ]);
    expect(created.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await call('GET', `/items/${created.body.id}`)).body).toEqual(created.body);
  });

  it('filters on every declared column and operator, sorts and pages', async () => {
    const list = await call('GET', '/items?category=tools&price__gte=10&sort=-price&page=1&itemsPerPage=1');
    expect(list.body).toMatchObject({ total_count: 2, has_more: true, page: 1, items_per_page: 1 });
    expect(list.body.data.map((i: { name: string }) => i.name)).toEqual(['Saw']);
    expect((await call('GET', '/items?name__ilike=h%25')).body.data[0].name).toBe('Hammer');
    expect((await call('GET', '/items?last_sold__is_not=null')).body.total_count).toBe(1);
    expect((await call('GET', '/items?created_at__gte=2000-01-01T00:00:00Z&id__in=1,3')).body.total_count).toBe(2);
    expect((await call('GET', '/items?name__eq=Saw')).body.data.map((i: { name: string }) => i.name)).toEqual(['Saw']);
  });

  it('refuses an operator a column does not take: text operators on numbers and dates, unknown ones anywhere', async () => {
    for (const [query, key] of [
      ['price__like=1%25', 'price__like'],
      ['created_at__contains=2024', 'created_at__contains'],
      ['name__bogus=x', 'name__bogus'],
    ]) {
      const res = await call('GET', `/items?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.detail, query).toContain(`'${key}'`);
    }
  });

  it('answers the match filter on name and category: full-text on PostgreSQL and MariaDB, a 400 on SQLite, never a 500', async () => {
    const byName = await call('GET', '/items?name__match=hammer');
    const byCategory = await call('GET', '/items?category__match=garden');
    if (engine === 'sqlite') {
      expect([byName.status, byCategory.status]).toEqual([400, 400]);
      return;
    }
    expect([byName.status, byCategory.status]).toEqual([200, 200]);
    expect(byName.body.data.map((item: { name: string }) => item.name)).toEqual(['Hammer']);
    expect(byCategory.body.data.map((item: { name: string }) => item.name)).toEqual(['Rake']);
  });

  // Each engine used to answer these its own way: a 500 for a lone `*` on MariaDB, year
  // 0050 read back as 1950 there, a price rounded on the server engines but not on SQLite.
  it('answers alike on every engine: match of operators alone, years before 1000, prices finer than cents', async () => {
    const star = await call('GET', '/items?name__match=*');
    expect(star.status).toBe(engine === 'sqlite' ? 400 : 200);
    if (engine !== 'sqlite') expect(star.body.data).toEqual([]);
    const early = await call('POST', '/items', { name: 'Old', last_sold: '0050-01-02T03:04:05Z' });
    expect(early.status).toBe(422);
    expect(early.body.detail[0].loc).toEqual(['body', 'last_sold']);
    const fine = await call('POST', '/items', { name: 'Fine', price: 1.005 });
    expect(fine.status).toBe(422);
    expect(fine.body.detail[0].loc).toEqual(['body', 'price']);
    expect((await call('GET', '/items?name=Old')).body.data).toEqual([]);
    expect((await call('GET', '/items?name=Fine')).body.data).toEqual([]);
    // The document states the scale, so a client knows before it sends.
    const doc = await call('GET', '/openapi.json');
    const create = doc.body.paths['/api/v1/items'].post.requestBody.content['application/json'].schema;
    const schema = create.$ref ? doc.body.components.schemas[create.$ref.split('/').pop()] : create;
    expect(schema.properties.price.multipleOf).toBe(0.01);
  });

  it('soft-deletes, then db_delete removes for good', async () => {
    const { body } = await call('POST', '/items', { name: 'Temp' });
    expect(await call('DELETE', `/items/${body.id}`)).toEqual({ status: 200, body: null });
    expect((await call('GET', `/items/${body.id}`)).status).toBe(404);
    expect((await call('DELETE', `/items/${body.id}`)).status).toBe(404);
    expect(await call('DELETE', `/items/db_delete/${body.id}`)).toEqual({ status: 200, body: null });
    expect(await db.knex('items').where('id', body.id).first()).toBeUndefined();
  });

  it('answers a create retried with its Idempotency-Key as the first, writing once, and takes a merge patch under If-Match', async () => {
    const post = () =>
      fetch(`${base}/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'example-retry' },
        body: JSON.stringify({ name: 'Retried' }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
    const first = await post();
    expect(first.status).toBe(201);
    expect(await post()).toEqual(first);
    expect(await db.knex('items').where({ name: 'Retried' })).toHaveLength(1);
    const url = `${base}/items/${first.body.id}`;
    const tag = (await fetch(url)).headers.get('etag')!;
    expect((await fetch(url, { headers: { 'if-none-match': tag } })).status).toBe(304);
    const patch = (price: number) =>
      fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json', prefer: 'return=representation', 'if-match': tag },
        body: JSON.stringify({ name: null, price }),
      });
    const patched = await patch(2);
    expect(patched.headers.get('preference-applied')).toBe('return=representation');
    expect(await patched.json()).toMatchObject({ id: first.body.id, name: null, price: 2 });
    // The tag it was sent with is stale now: the same write is refused and changes nothing.
    expect((await patch(3)).status).toBe(412);
    expect((await call('GET', `/items/${first.body.id}`)).body.price).toBe(2);
  });

  it('creates in bulk, updates by a filter, deletes by ids and upserts with PUT', async () => {
    const created = await call('POST', '/items/bulk', [
      { name: 'Bulk1', category: 'bulk' },
      { name: 'Bulk2', category: 'bulk' },
    ]);
    expect(created.status).toBe(201);
    const ids = created.body.map((item: { id: number }) => item.id);
    expect(await call('PATCH', '/items/bulk', { filter: { category: 'bulk' }, set: { price: 2 } })).toEqual({
      status: 200,
      body: { count: 2 },
    });
    expect(await call('DELETE', '/items/bulk', { ids })).toEqual({ status: 200, body: { count: 2 } });
    expect((await call('PUT', `/items/${ids[0] + 100}`, { name: 'Put' })).status).toBe(201);
  });

  it('answers unknown paths with a JSON 404', async () => {
    expect(await call('GET', '/nothing')).toEqual({ status: 404, body: { detail: 'Not Found' } });
  });
});
