import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, operation, resource, type ResourceSpec } from '@crudsmith/client';

// A custom operation and the write headers against a real HTTP server that echoes what it
// received: the path filled, the query encoded, the body sent (JSON, or multipart for a
// form route), Prefer, If-Match and Idempotency-Key as asked.

let server: Server;
let http: HttpClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { prefer, 'if-match': ifMatch, 'idempotency-key': key } = req.headers;
      const type = req.headers['content-type'];
      const json = body && type === 'application/json';
      const echo = {
        method: req.method,
        url: req.url,
        body: json ? JSON.parse(body) : body || null,
        type,
        prefer,
        ifMatch,
        key,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  http = new HttpClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

interface UpsertOp {
  params: { tier_name: string; id: number };
  query: { on_conflict?: 'id'; since?: Date; ids?: number[] };
  body: { name: string };
  answer: Record<string, unknown>;
}

interface UploadOp {
  params: { id: number };
  body: { file: Blob; tags?: string[]; size?: number; note?: string } | FormData;
  answer: { body: string; type: string };
}

describe('a custom operation', () => {
  it('sends a form body as multipart: a file part with its name, one part per array item, scalars as text', async () => {
    const upload = operation<UploadOp>(http, 'POST', '/upload/{id}', { params: true, body: true, form: true });
    const file = new File(['hello'], 'hello.txt', { type: 'text/plain' });
    const sent = await upload({ id: 4 }, { file, tags: ['a', 'b'], size: 5, note: undefined });
    expect(sent.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toContain('name="file"; filename="hello.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n');
    expect(sent.body.match(/name="tags"\r\n\r\n[ab]\r\n/g)).toHaveLength(2);
    expect(sent.body).toContain('name="size"\r\n\r\n5\r\n');
    expect(sent.body).not.toContain('name="note"');
    // A FormData built by the caller goes as it is.
    const own = new FormData();
    own.append('file', new Blob(['x']), 'x.bin');
    expect((await upload({ id: 4 }, own)).body).toContain('name="file"; filename="x.bin"');
  });

  it('fills the path, encodes the query, sends the body and the write headers', async () => {
    const upsert = operation<UpsertOp>(http, 'PUT', '/tier/{tier_name}/{id}', { params: true, body: true });
    const seen = await upsert(
      { tier_name: 'a b', id: 7 },
      { name: 'x' },
      { query: { on_conflict: 'id', ids: [1, 2], since: new Date(0) }, prefer: 'return=minimal', ifMatch: '"v1"' },
    );
    expect(seen).toEqual({
      method: 'PUT',
      url: '/tier/a%20b/7?on_conflict=id&ids=1%2C2&since=1970-01-01T00%3A00%3A00.000Z',
      body: { name: 'x' },
      type: 'application/json',
      prefer: 'return=minimal',
      ifMatch: '"v1"',
    });
  });

  it("sends a create's Idempotency-Key, and answers an export's Response unread", async () => {
    const items = resource<ResourceSpec & { filters: { price__gte?: number }; sort: 'name' }, 'create' | 'export'>(
      http,
      { create: '/items', export: '/items/export' },
    );
    expect(await items.create({ name: 'x' }, { idempotencyKey: 'k1' })).toMatchObject({ method: 'POST', key: 'k1' });
    const exported = await items.export({ filters: { price__gte: 3 }, sort: '-name', format: 'ndjson' });
    expect(JSON.parse(await exported.text())).toMatchObject({
      url: '/items/export?price__gte=3&sort=-name&format=ndjson',
    });
  });
});
