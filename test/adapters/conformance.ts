// The one suite every HTTP adapter passes (STYLE rule 13): the same requests must give
// the same responses on Koa, Express and Fastify. Each adapter's test file supplies a
// harness that starts a real server; everything here talks to it with fetch.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, type Dependency, type ErrorLogger, type Fallback, type HttpMethod, type NeutralRequest, type NeutralResult, type RouteDescriptor, type SessionManager } from '@crudsmith/core';

/** The adapter options every adapter understands. */
export interface MountOptions {
  prefix?: string;
  bodyLimit?: number;
  trustedProxies?: string[];
  logger?: ErrorLogger;
  fallbacks?: Fallback[];
  /** Session managers the routes use: the Koa harness carries them with koa-session (DESIGN §2); the others ignore this. */
  sessions?: SessionManager[];
}

/** A server listening on 127.0.0.1, port chosen by the system. */
export interface MountedServer {
  url: string;
  close(): Promise<void>;
}

/** What an adapter's test file provides. */
export interface AdapterHarness {
  name: string;
  /**
   * Starts the user's app with `routes` mounted, where the app itself also answers
   * `GET /own` with the text `own` (registered after the mounted routes).
   */
  mount(routes: RouteDescriptor[], options: MountOptions): Promise<MountedServer>;
}

/** Builds a route descriptor for a test from `'METHOD /path'`. */
export function route(
  operation: `${HttpMethod} /${string}`,
  handler: (req: NeutralRequest) => NeutralResult | Promise<NeutralResult>,
  dependencies: Dependency[] = [],
): RouteDescriptor {
  const [method, path] = operation.split(' ') as [HttpMethod, string];
  return { method, path, operation, dependencies, handler: async (req) => handler(req) };
}

// Response.json() is typed unknown; these tests read known shapes.
const readJson = (res: Response): Promise<any> => res.json();

/** Answers with what the handler received, files summarised. */
const echo = (req: NeutralRequest): NeutralResult => ({
  status: 200,
  json: {
    method: req.method,
    path: req.path,
    params: req.params,
    query: req.query,
    headers: { 'x-custom': req.headers['x-custom'] },
    cookies: req.cookies,
    body: req.body === undefined ? '<none>' : req.body,
    files: req.files.map((f) => ({ field: f.field, filename: f.filename, contentType: f.contentType, size: f.size, text: f.data.toString('utf8') })),
    clientAddress: req.clientAddress,
  },
});

const countCalls: Dependency<string> = (req) => {
  req.state.calls = ((req.state.calls as number | undefined) ?? 0) + 1;
  return 'user';
};
const usesCount: Dependency<string> = async (req) => `${await req.resolve(countCalls)}!`;

function routes(): RouteDescriptor[] {
  return [
    route('GET /items/:id', echo),
    route('POST /echo', echo),
    { ...route('POST /roomy', echo), bodyLimit: 3000 },
    { ...route('POST /tight', echo), bodyLimit: 100 },
    route('PUT /echo/:a/:b', echo),
    route('GET /users/', echo),
    route('GET /created-null', () => ({ status: 201, json: null })),
    route('GET /json-string', () => ({ status: 200, json: 'text' })),
    route('GET /cookies', () => ({
      status: 200,
      json: { ok: true },
      cookies: [
        { name: 'session', value: 'abc', httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: 3600 },
        { name: 'csrf', value: 'x y', sameSite: 'strict', path: '/', expires: new Date('2030-01-01T00:00:00Z') },
      ],
      headers: { 'X-Extra': 'one', 'X-Multi': ['a', 'b'] },
    })),
    route('GET /redirect', () => ({ status: 200, redirect: '/elsewhere' })),
    route('GET /redirect-303', () => ({ status: 303, redirect: 'https://example.com/next?x=1' })),
    route('GET /html', () => ({ status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: '<p>hello</p>' })),
    route('GET /bytes', () => ({ status: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array([1, 2, 3]) })),
    route('GET /stream', () => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Readable.from(['str', 'eam']) })),
    route('GET /missing', () => {
      throw new NotFoundError();
    }),
    route('GET /boom', () => {
      throw new Error('secret database password');
    }),
    route('GET /fb/real', () => ({ status: 200, json: 'real' })),
    route('GET /fb/things/:id', (req) => ({ status: 200, json: req.params.id })),
    route('GET /deps', async (req) => {
      await req.resolve(countCalls);
      await req.resolve(usesCount);
      return { status: 200, json: { calls: req.state.calls, value: await req.resolve(usesCount) } };
    }, [countCalls, usesCount]),
  ];
}

/** A fallback that answers 404 with what it saw, and says which prefix caught the path. */
function fallback(prefix: string): Fallback {
  return {
    prefix,
    handler: async (req) => {
      if (req.query.fail !== undefined) throw new NotFoundError('Thrown by the fallback');
      return { status: 404, headers: { 'X-Fallback': prefix }, json: { detail: 'Nothing here', method: req.method, path: req.path, body: req.body ?? null } };
    },
  };
}

/** Runs the shared adapter behaviour against `harness`. */
export function runAdapterSuite(harness: AdapterHarness): void {
  describe(`${harness.name} adapter conformance`, () => {
    const logged: unknown[] = [];
    const logger: ErrorLogger = { error: (_message, error) => void logged.push(error) };
    let base: MountedServer;
    let small: MountedServer;
    let proxied: MountedServer;

    beforeAll(async () => {
      base = await harness.mount(routes(), { prefix: '/api', logger, fallbacks: [fallback('/fb'), fallback('/fb/deeper')] });
      small = await harness.mount(routes(), { bodyLimit: 1000, logger });
      proxied = await harness.mount(routes(), { trustedProxies: ['127.0.0.1', '10.0.0.0/8'], logger });
    });
    afterAll(async () => {
      await Promise.all([base, small, proxied].map((server) => server?.close()));
    });

    const api = (path: string, init?: RequestInit) => fetch(`${base.url}/api${path}`, init);
    const postJson = (server: MountedServer, body: string) =>
      fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const postJsonGzip = (server: MountedServer, body: string) =>
      fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(body) });

    describe('request translation', () => {
      it('passes method, decoded path, params, repeated query keys, headers and cookies', async () => {
        const res = await api('/items/caf%C3%A9%2F1?a=1&a=2&b=x+y&c=%C3%A9', {
          headers: { 'X-Custom': 'yes', Cookie: 'session=abc; theme=dark%20mode' },
        });
        expect(res.status).toBe(200);
        expect(await readJson(res)).toEqual({
          method: 'GET',
          path: '/api/items/café/1',
          params: { id: 'café/1' },
          query: { a: ['1', '2'], b: 'x y', c: 'é' },
          headers: { 'x-custom': 'yes' },
          cookies: { session: 'abc', theme: 'dark mode' },
          body: '<none>',
          files: [],
          clientAddress: '127.0.0.1',
        });
      });

      it('parses a JSON body', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x","n":[1,{"a":null}]}' });
        expect((await readJson(res)).body).toEqual({ name: 'x', n: [1, { a: null }] });
      });

      it('parses a urlencoded form flat, a repeated field giving an array', async () => {
        const res = await api('/echo/1/2', { method: 'PUT', body: new URLSearchParams('name=a+b&tag=1&tag=2&user.name=u&x[y]=z') });
        const json = await readJson(res);
        expect(json.params).toEqual({ a: '1', b: '2' });
        expect(json.body).toEqual({ name: 'a b', tag: ['1', '2'], 'user.name': 'u', 'x[y]': 'z' });
      });

      it('parses a multipart body into files and fields', async () => {
        const form = new FormData();
        form.append('title', 'hello');
        form.append('tag', 'a');
        form.append('tag', 'b');
        form.append('file', new Blob(['file content'], { type: 'text/plain' }), 'notes.txt');
        const json = await readJson(await api('/echo', { method: 'POST', body: form }));
        expect(json.body).toEqual({ title: 'hello', tag: ['a', 'b'] });
        expect(json.files).toEqual([{ field: 'file', filename: 'notes.txt', contentType: 'text/plain', size: 12, text: 'file content' }]);
      });

      it('gives undefined for an empty body', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
        expect((await readJson(res)).body).toBe('<none>');
        const bare = await api('/echo', { method: 'POST' });
        expect((await readJson(bare)).body).toBe('<none>');
      });

      it('answers 400 for malformed JSON, never 500', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
        expect(res.status).toBe(400);
        expect(await readJson(res)).toEqual({ detail: 'Malformed JSON body' });
      });

      it('reads a gzip-encoded JSON body', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"name":"zipped"}') });
        expect((await readJson(res)).body).toEqual({ name: 'zipped' });
      });

      it('answers 400 for a body that does not match its Content-Encoding, never 500', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{"name":"plain"}' });
        expect(res.status).toBe(400);
        expect(await readJson(res)).toEqual({ detail: 'Body does not match its Content-Encoding' });
        const form = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'deflate' }, body: 'a=1' });
        expect(form.status).toBe(400);
      });

      it('answers 415 for an unknown Content-Encoding', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'x-unheard-of' }, body: '{}' });
        expect(res.status).toBe(415);
        expect(typeof (await readJson(res)).detail).toBe('string');
      });

      it('answers 413 for a small gzip body that inflates past the limit', async () => {
        const res = await postJsonGzip(small, JSON.stringify({ text: 'x'.repeat(50_000) }));
        expect(res.status).toBe(413);
      });

      it('answers 400 for a JSON body nested deeper than 64 levels, and accepts 64', async () => {
        const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(65) });
        expect(res.status).toBe(400);
        expect(typeof (await readJson(res)).detail).toBe('string');
        const ok = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(64) });
        expect(ok.status).toBe(200);
        const huge = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(100_000) });
        expect(huge.status).toBe(400);
      });

      it('answers 413 with a JSON detail for a body over the limit', async () => {
        const res = await postJson(small, JSON.stringify({ text: 'x'.repeat(2000) }));
        expect(res.status).toBe(413);
        expect(typeof (await readJson(res)).detail).toBe('string');
        const ok = await postJson(small, JSON.stringify({ text: 'x'.repeat(500) }));
        expect(ok.status).toBe(200);
      });

      it("takes a route's own bodyLimit over the adapter's, for JSON and multipart", async () => {
        const post = (path: string, body: string | FormData, type?: string) =>
          fetch(`${small.url}${path}`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
        expect((await post('/roomy', JSON.stringify({ text: 'x'.repeat(2000) }), 'application/json')).status).toBe(200);
        expect((await post('/roomy', JSON.stringify({ text: 'x'.repeat(4000) }), 'application/json')).status).toBe(413);
        const form = new FormData();
        form.append('file', new Blob(['z'.repeat(2000)]), 'f.bin');
        const upload = await readJson(await post('/roomy', form));
        expect(upload.files[0].size).toBe(2000);
        expect((await post('/tight', JSON.stringify({ text: 'x'.repeat(200) }), 'application/json')).status).toBe(413);
      });

      it('answers 413 for a body over the default 1 MiB, sent whole', async () => {
        const res = await api('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('x'.repeat(2 * 1024 * 1024)) });
        expect(res.status).toBe(413);
        const form = new FormData();
        form.append('file', new Blob([Buffer.alloc(3 * 1024 * 1024)]), 'big.bin');
        const upload = await api('/echo', { method: 'POST', body: form });
        expect(upload.status).toBe(413);
        expect((await api('/items/1')).status).toBe(200);
      });

      it('answers 413 for an oversized chunked body that declares no length', async () => {
        const chunks = Array.from({ length: 20 }, () => JSON.stringify('x'.repeat(100)));
        const body = Readable.toWeb(Readable.from(['[', chunks.join(','), ']'])) as ReadableStream;
        const res = await fetch(`${small.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
        expect(res.status).toBe(413);
      });

      it('answers 413 for a multipart body over the limit, files and fields counted together', async () => {
        const form = new FormData();
        for (let i = 0; i < 5; i++) form.append(`file${i}`, new Blob(['y'.repeat(300)]), `f${i}.txt`);
        const encoded = new Response(form);
        const bytes = Buffer.from(await encoded.arrayBuffer());
        // Small chunks, so the limit is crossed in the middle of a file part.
        const pieces = Array.from({ length: Math.ceil(bytes.length / 256) }, (_, i) => bytes.subarray(i * 256, (i + 1) * 256));
        const body = Readable.toWeb(Readable.from(pieces)) as ReadableStream;
        const res = await fetch(`${small.url}/echo`, {
          method: 'POST',
          headers: { 'content-type': encoded.headers.get('content-type')! },
          body,
          duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(413);
        expect(typeof (await readJson(res)).detail).toBe('string');
      });

      it('answers 400 for a path that is not valid percent-encoded UTF-8', async () => {
        const res = await api('/items/%C3%28');
        expect(res.status).toBe(400);
        expect(typeof (await readJson(res)).detail).toBe('string');
      });

      it('resolves each dependency once per request, however often it is used', async () => {
        const first = await readJson(await api('/deps'));
        const second = await readJson(await api('/deps'));
        expect(first).toEqual({ calls: 1, value: 'user!' });
        expect(second).toEqual({ calls: 1, value: 'user!' });
      });
    });

    describe('client address', () => {
      it('ignores X-Forwarded-For by default', async () => {
        const json = await readJson(await api('/items/1', { headers: { 'X-Forwarded-For': '203.0.113.9' } }));
        expect(json.clientAddress).toBe('127.0.0.1');
      });

      it('takes the right-most untrusted hop when the peer is a trusted proxy', async () => {
        const json = await readJson(await fetch(`${proxied.url}/items/1`, { headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9, 10.1.2.3' } }));
        expect(json.clientAddress).toBe('203.0.113.9');
      });
    });

    describe('result translation', () => {
      it('sends json null as the body null with the status asked', async () => {
        const res = await api('/created-null');
        expect(res.status).toBe(201);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await res.text()).toBe('null');
      });

      it('sends a JSON string as JSON', async () => {
        const res = await api('/json-string');
        expect(await res.text()).toBe('"text"');
      });

      it('sends several Set-Cookie headers with their flags, and other headers', async () => {
        const res = await api('/cookies');
        const cookies = res.headers.getSetCookie();
        expect(cookies).toHaveLength(2);
        expect(cookies[0]).toMatch(/^session=abc;/);
        expect(cookies[0]).toContain('Max-Age=3600');
        expect(cookies[0]).toContain('Path=/');
        expect(cookies[0]).toContain('HttpOnly');
        expect(cookies[0]).toContain('Secure');
        expect(cookies[0]).toMatch(/SameSite=Lax/i);
        expect(cookies[1]).toMatch(/^csrf=x%20y;/);
        expect(cookies[1]).toContain('Expires=Tue, 01 Jan 2030 00:00:00 GMT');
        expect(cookies[1]).toMatch(/SameSite=Strict/i);
        expect(cookies[1]).not.toContain('HttpOnly');
        expect(res.headers.get('x-extra')).toBe('one');
        expect(res.headers.get('x-multi')).toBe('a, b');
      });

      it('redirects with 302, or with the 3xx status given', async () => {
        const res = await api('/redirect', { redirect: 'manual' });
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('/elsewhere');
        const other = await api('/redirect-303', { redirect: 'manual' });
        expect(other.status).toBe(303);
        expect(other.headers.get('location')).toBe('https://example.com/next?x=1');
      });

      it('sends an HTML string with its content type', async () => {
        const res = await api('/html');
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await res.text()).toBe('<p>hello</p>');
      });

      it('sends bytes and streams as they are', async () => {
        const bytes = await api('/bytes');
        expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
        expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([1, 2, 3]);
        const stream = await api('/stream');
        expect(await stream.text()).toBe('stream');
      });
    });

    describe('errors', () => {
      it('renders a thrown NotFoundError as 404 with its detail', async () => {
        const res = await api('/missing');
        expect(res.status).toBe(404);
        expect(await readJson(res)).toEqual({ detail: 'Item not found' });
      });

      it('renders an unknown error as 500 without its message, and logs it', async () => {
        const res = await api('/boom');
        expect(res.status).toBe(500);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ detail: 'Internal server error' });
        expect(text).not.toContain('secret');
        expect(logged.some((error) => error instanceof Error && error.message === 'secret database password')).toBe(true);
      });
    });

    describe('matching', () => {
      it('lets an unmatched path fall through to the app', async () => {
        const own = await fetch(`${base.url}/own`);
        expect(own.status).toBe(200);
        expect(await own.text()).toBe('own');
        const missing = await api('/nothing-here');
        expect(missing.status).toBe(404);
      });

      it('answers unmatched paths under a fallback prefix with that fallback, longest prefix first', async () => {
        const res = await api('/fb/no/such/path?x=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
        expect(res.status).toBe(404);
        expect(res.headers.get('x-fallback')).toBe('/fb');
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await readJson(res)).toEqual({ detail: 'Nothing here', method: 'POST', path: '/api/fb/no/such/path', body: { a: 1 } });
        expect((await api('/fb')).headers.get('x-fallback')).toBe('/fb');
        expect((await api('/fb/')).headers.get('x-fallback')).toBe('/fb');
        expect((await api('/fb/deeper/x')).headers.get('x-fallback')).toBe('/fb/deeper');
        // An empty parameter matches no route, so the fallback answers it.
        expect(await readJson(await api('/fb/things/7'))).toBe('7');
        const empty = await api('/fb/things/');
        expect(empty.status).toBe(404);
        expect(empty.headers.get('x-fallback')).toBe('/fb');
        const thrown = await api('/fb/x?fail');
        expect(thrown.status).toBe(404);
        expect(await readJson(thrown)).toEqual({ detail: 'Thrown by the fallback' });
      });

      it('lets routes under a fallback prefix win, and keeps their 405', async () => {
        const real = await api('/fb/real');
        expect(await readJson(real)).toBe('real');
        const other = await api('/fb/real', { method: 'DELETE' });
        expect(other.status).toBe(405);
        expect(other.headers.get('x-fallback')).toBeNull();
      });

      it('leaves paths outside every fallback prefix to the app', async () => {
        for (const path of ['/fbx', '/FB/x', '/other']) {
          const res = await api(path);
          expect(res.status).toBe(404);
          expect(res.headers.get('x-fallback')).toBeNull();
        }
        expect((await fetch(`${base.url}/fb/x`)).headers.get('x-fallback')).toBeNull();
        expect(await (await fetch(`${base.url}/own`)).text()).toBe('own');
      });

      it('matches case-sensitively and the trailing slash as written', async () => {
        expect((await api('/Items/1')).status).toBe(404);
        expect((await api('/items/1/')).status).toBe(404);
        // An empty segment is no parameter value: `/items/:id` does not answer `/items/`.
        expect((await api('/items/')).status).toBe(404);
        expect((await api('/users/')).status).toBe(200);
        expect((await api('/users')).status).toBe(404);
        expect((await fetch(`${base.url}/API/items/1`)).status).toBe(404);
      });
    });
  });
}
