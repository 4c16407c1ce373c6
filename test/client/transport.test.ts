import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpClient,
  listQuery,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '@crudsmith/client';

// The transport against a real HTTP server whose answers each path scripts: retries of
// idempotent requests on 503, typed errors, the timeout, and the list query's encoding.

let server: Server;
let baseUrl: string;
const seen: string[] = [];
let unavailable = 0;

function answer(req: IncomingMessage, res: ServerResponse): void {
  seen.push(`${req.method} ${req.url}`);
  const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  if (req.url === '/flaky') {
    if (unavailable-- > 0) return send(503, { detail: 'Busy' }, { 'retry-after': '0' });
    return send(200, { ok: true });
  }
  if (req.url === '/limited') return send(429, { detail: 'Too many requests' }, { 'retry-after': '7' });
  if (req.url === '/invalid')
    return send(422, { detail: [{ loc: ['query', 'limit'], msg: 'too small', type: 'value_error' }] });
  if (req.url === '/slow') return; // never answers: the client's timeout ends it
  send(200, { url: req.url });
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('the client transport', () => {
  it('retries an idempotent request answered 503 after Retry-After, and never a POST', async () => {
    const http = new HttpClient({ baseUrl });
    unavailable = 2;
    expect(await http.request({ method: 'GET', path: '/flaky' })).toEqual({ ok: true });
    unavailable = 1;
    const refused = await http.request({ method: 'POST', path: '/flaky', json: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceUnavailableError);
    expect((refused as ServiceUnavailableError).retryAfter).toBe(0);
    expect(seen.filter((line) => line.endsWith('/flaky'))).toEqual([
      'GET /flaky',
      'GET /flaky',
      'GET /flaky',
      'POST /flaky',
    ]);
  });

  it('throws typed errors by status, and TimeoutError past the timeout', async () => {
    const http = new HttpClient({ baseUrl, timeout: 100 });
    const limited = await http.request({ method: 'GET', path: '/limited' }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(7);
    const invalid = await http.request({ method: 'GET', path: '/invalid' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues[0].loc).toEqual(['query', 'limit']);
    expect((invalid as ValidationError).code).toBe('validation_error');
    await expect(http.request({ method: 'GET', path: '/slow' })).rejects.toBeInstanceOf(TimeoutError);
  });

  it('encodes filters, sort and pagination as the server reads them', async () => {
    const query = listQuery({
      filters: { price__gte: 10, id__in: [1, 2], last_sold__lt: new Date('2026-01-02T03:04:05Z'), skip: undefined },
      sort: ['-price', 'name'],
      cursor: null,
      limit: 5,
    });
    expect(query.toString()).toBe(
      'price__gte=10&id__in=1%2C2&last_sold__lt=2026-01-02T03%3A04%3A05.000Z&sort=-price%2Cname&limit=5&cursor=',
    );
  });
});
