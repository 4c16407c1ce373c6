// Adapter conformance: how each adapter reads a request into the neutral one.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { clientOf, readJson, type SuiteEnv } from './conformance-kit';

/** Request translation: paths, params, query, headers, cookies, bodies and their limits. */
export function requestTranslation(env: SuiteEnv): void {
  const { api, send, postJson, postJsonGzip } = clientOf(env);

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
      const res = await send('/echo', '{"name":"x","n":[1,{"a":null}]}');
      expect((await readJson(res)).body).toEqual({ name: 'x', n: [1, { a: null }] });
    });

    it('parses a urlencoded form flat, a repeated field giving an array', async () => {
      const res = await api('/echo/1/2', {
        method: 'PUT',
        body: new URLSearchParams('name=a+b&tag=1&tag=2&user.name=u&x[y]=z'),
      });
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
      expect(json.files).toEqual([
        { field: 'file', filename: 'notes.txt', contentType: 'text/plain', size: 12, text: 'file content' },
      ]);
    });

    it('gives undefined for an empty body', async () => {
      const res = await send('/echo', '');
      expect((await readJson(res)).body).toBe('<none>');
      const bare = await api('/echo', { method: 'POST' });
      expect((await readJson(bare)).body).toBe('<none>');
    });

    it('answers 400 for malformed JSON, never 500', async () => {
      const res = await send('/echo', '{"name":');
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ detail: 'Malformed JSON body' });
    });

    it('reads a gzip-encoded JSON body', async () => {
      const res = await send('/echo', gzipSync('{"name":"zipped"}'), { 'content-encoding': 'gzip' });
      expect((await readJson(res)).body).toEqual({ name: 'zipped' });
    });

    it('answers 400 for a body that does not match its Content-Encoding, never 500', async () => {
      const res = await send('/echo', '{"name":"plain"}', { 'content-encoding': 'gzip' });
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ detail: 'Body does not match its Content-Encoding' });
      const form = await send('/echo', 'a=1', {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': 'deflate',
      });
      expect(form.status).toBe(400);
    });

    it('answers 400 for a body that is not the brotli its Content-Encoding says, never 500', async () => {
      const res = await send('/echo', '{"name":"plain"}', { 'content-encoding': 'br' });
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ detail: 'Body does not match its Content-Encoding' });
    });

    it('answers 415 for an unknown Content-Encoding', async () => {
      const res = await send('/echo', '{}', { 'content-encoding': 'x-unheard-of' });
      expect(res.status).toBe(415);
      expect(typeof (await readJson(res)).detail).toBe('string');
    });

    it('answers 413 for a small gzip body that inflates past the limit', async () => {
      const res = await postJsonGzip(env.small, JSON.stringify({ text: 'x'.repeat(50_000) }));
      expect(res.status).toBe(413);
    });

    it('answers 400 for a JSON body nested deeper than 64 levels, and accepts 64', async () => {
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      const res = await send('/echo', nested(65));
      expect(res.status).toBe(400);
      expect(typeof (await readJson(res)).detail).toBe('string');
      const ok = await send('/echo', nested(64));
      expect(ok.status).toBe(200);
      const huge = await send('/echo', nested(100_000));
      expect(huge.status).toBe(400);
    });

    it('answers 413 naming the cap for a JSON body of more than 10,000 values, counted at every depth, and accepts 10,000', async () => {
      const json = (body: unknown) => send('/echo', JSON.stringify(body));
      const over = await json({ list: Array.from({ length: 5000 }, () => ({})), more: Array(4999).fill(0) });
      expect(over.status).toBe(413);
      expect((await readJson(over)).detail).toBe(
        'Request body holds more than 10000 values (keys and array items, counted at every depth)',
      );
      expect((await json({ list: Array.from({ length: 5000 }, () => ({})), more: Array(4998).fill(0) })).status).toBe(
        200,
      );
      expect((await json(Array(10_001).fill([]))).status).toBe(413);
    });

    it("takes the adapter's maxBodyValues for JSON, urlencoded and multipart bodies", async () => {
      const post = (body: string | FormData | URLSearchParams, type?: string) =>
        fetch(`${env.small.url}/echo`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      expect((await post(JSON.stringify(Array(50).fill(1)), 'application/json')).status).toBe(200);
      expect((await post(JSON.stringify(Array(51).fill(1)), 'application/json')).status).toBe(413);
      expect(
        (await post(new URLSearchParams(Array.from({ length: 50 }, (_, i): [string, string] => [`f${i}`, 'v']))))
          .status,
      ).toBe(200);
      expect(
        (await post(new URLSearchParams(Array.from({ length: 50 }, (): [string, string] => ['tag', 'v'])))).status,
      ).toBe(413);
      const form = new FormData();
      for (let i = 0; i < 51; i++) form.append(`f${i}`, 'v');
      const refused = await post(form);
      expect(refused.status).toBe(413);
      expect(typeof (await readJson(refused)).detail).toBe('string');
    });

    it('answers 413 with a JSON detail for a body over the limit', async () => {
      const res = await postJson(env.small, JSON.stringify({ text: 'x'.repeat(2000) }));
      expect(res.status).toBe(413);
      expect(typeof (await readJson(res)).detail).toBe('string');
      const ok = await postJson(env.small, JSON.stringify({ text: 'x'.repeat(500) }));
      expect(ok.status).toBe(200);
    });

    it("takes a route's own bodyLimit over the adapter's, for JSON and multipart", async () => {
      const post = (path: string, body: string | FormData, type?: string) =>
        fetch(`${env.small.url}${path}`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      expect((await post('/roomy', JSON.stringify({ text: 'x'.repeat(2000) }), 'application/json')).status).toBe(200);
      expect((await post('/roomy', JSON.stringify({ text: 'x'.repeat(4000) }), 'application/json')).status).toBe(413);
      const form = new FormData();
      form.append('file', new Blob(['z'.repeat(2000)]), 'f.bin');
      const upload = await readJson(await post('/roomy', form));
      expect(upload.files[0].size).toBe(2000);
      expect((await post('/tight', JSON.stringify({ text: 'x'.repeat(200) }), 'application/json')).status).toBe(413);
    });

    it('answers 413 for a body over the default 1 MiB, sent whole', async () => {
      const res = await send('/echo', JSON.stringify('x'.repeat(2 * 1024 * 1024)));
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
      const res = await fetch(`${env.small.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
    });

    it('answers 413 for a multipart body over the limit, files and fields counted together', async () => {
      const form = new FormData();
      for (let i = 0; i < 5; i++) form.append(`file${i}`, new Blob(['y'.repeat(300)]), `f${i}.txt`);
      const encoded = new Response(form);
      const bytes = Buffer.from(await encoded.arrayBuffer());
      // Small chunks, so the limit is crossed in the middle of a file part.
      const pieces = Array.from({ length: Math.ceil(bytes.length / 256) }, (_, i) =>
        bytes.subarray(i * 256, (i + 1) * 256),
      );
      const body = Readable.toWeb(Readable.from(pieces)) as ReadableStream;
      const res = await fetch(`${env.small.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': encoded.headers.get('content-type')! },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(typeof (await readJson(res)).detail).toBe('string');
    });

    it("answers 404 for a percent-encoded spelling of a route's fixed segments, as no route is written that way", async () => {
      expect((await api('/items/1')).status).toBe(200);
      for (const path of ['/%69tems/1', '/it%65ms/1', '/%69tems%2F1', '/users%2F', '/%75sers/', '/echo/%61/b']) {
        const res = await api(path, path.startsWith('/echo') ? { method: 'PUT' } : undefined);
        if (path.startsWith('/echo')) expect(res.status, path).toBe(200);
        else expect(res.status, path).toBe(404);
      }
      // A parameter may be encoded: it is decoded for the handler.
      expect((await readJson(await api('/items/%31'))).params).toEqual({ id: '1' });
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
}
