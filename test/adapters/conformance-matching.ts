// Adapter conformance: which requests reach a route, a fallback, or the app itself.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientOf, readJson, type SuiteEnv } from './conformance-kit';

/** Sends `method` with node:http, since fetch refuses TRACE. */
function raw(
  url: string,
  method: string,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const headers =
      body === undefined
        ? {}
        : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Matching: case, trailing slashes, 405s, fallbacks, and paths left to the app. */
export function routeMatching(env: SuiteEnv): void {
  const { api, send } = clientOf(env);

  describe('matching', () => {
    it('lets an unmatched path fall through to the app', async () => {
      const own = await fetch(`${env.base.url}/own`);
      expect(own.status).toBe(200);
      expect(await own.text()).toBe('own');
      const missing = await api('/nothing-here');
      expect(missing.status).toBe(404);
    });

    it('answers unmatched paths under a fallback prefix with that fallback, longest prefix first', async () => {
      const res = await send('/fb/no/such/path?x=1', '{"a":1}');
      expect(res.status).toBe(404);
      expect(res.headers.get('x-fallback')).toBe('/fb');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await readJson(res)).toEqual({
        detail: 'Nothing here',
        method: 'POST',
        path: '/api/fb/no/such/path',
        body: { a: 1 },
      });
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

    it('answers a known path with another method 405 with Allow and a JSON detail, and OPTIONS with Allow', async () => {
      const res = await api('/only-get/1', { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
      expect(await readJson(res)).toEqual({ detail: 'Method Not Allowed' });
      const options = await api('/only-get/1', { method: 'OPTIONS' });
      expect(options.status).toBe(200);
      expect(options.headers.get('allow')).toBe('GET, HEAD, PATCH');
      expect((await api('/only-get/1', { method: 'HEAD' })).status).toBe(200);
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
      expect((await fetch(`${env.base.url}/fb/x`)).headers.get('x-fallback')).toBeNull();
      expect(await (await fetch(`${env.base.url}/own`)).text()).toBe('own');
    });

    it('answers every unmatched path under the prefix with the JSON 404 when jsonNotFound is set', async () => {
      for (const path of ['/nothing-here', '/Items/1', '/items/1/', '/items/', '/deep/er/path?x=1']) {
        const res = await fetch(`${env.strict.url}/api${path}`, { method: 'POST' });
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await readJson(res)).toEqual({ detail: 'Not Found' });
      }
      // Routes, their 405s and the fallbacks keep answering; paths outside the prefix stay the app's.
      expect((await fetch(`${env.strict.url}/api/items/1`)).status).toBe(200);
      expect((await fetch(`${env.strict.url}/api/items/1`, { method: 'PUT' })).status).toBe(405);
      expect((await fetch(`${env.strict.url}/api/fb/x`)).headers.get('x-fallback')).toBe('/fb');
      expect(await (await fetch(`${env.strict.url}/own`)).text()).toBe('own');
    });

    it('answers TRACE and QUERY like any method a path does not serve: a JSON 405 with Allow', async () => {
      for (const method of ['TRACE', 'QUERY', 'PUT']) {
        for (const [path, allow] of [
          ['/api/items/1', 'GET, HEAD'],
          ['/api/echo', 'POST'],
          ['/api/fb/real', 'GET, HEAD'],
        ]) {
          // QUERY carries a body, and Fastify wants its Content-Type before routing.
          const res = await raw(`${env.base.url}${path}`, method, method === 'QUERY' ? '{}' : undefined);
          expect(res.status, `${method} ${path} ${res.text}`).toBe(405);
          expect(res.headers.allow, `${method} ${path}`).toBe(allow);
          expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(JSON.parse(res.text)).toEqual({ detail: 'Method Not Allowed' });
        }
      }
    });

    it('answers methods outside the common ones (WebDAV, SSDP) on a served path with the same JSON 405 with Allow', async () => {
      for (const method of ['PROPFIND', 'PROPPATCH', 'MKCOL', 'LOCK', 'SEARCH', 'M-SEARCH', 'PURGE']) {
        for (const [path, allow] of [
          ['/api/items/1', 'GET, HEAD'],
          ['/api/echo', 'POST'],
        ]) {
          const res = await raw(`${env.base.url}${path}`, method);
          expect(res.status, `${method} ${path} ${res.text}`).toBe(405);
          expect(res.headers.allow, `${method} ${path}`).toBe(allow);
          expect(JSON.parse(res.text)).toEqual({ detail: 'Method Not Allowed' });
        }
      }
      // With a body, as a PROPFIND has one.
      const withBody = await raw(`${env.base.url}/api/items/1`, 'PROPFIND', '{"prop":"all"}');
      expect(withBody.status).toBe(405);
      expect(JSON.parse(withBody.text)).toEqual({ detail: 'Method Not Allowed' });
    });

    it('answers such a method on a path no route has like any other: the fallback, the JSON 404, or the app', async () => {
      const fallback = await raw(`${env.base.url}/api/fb/no/such`, 'PROPFIND', '{"a":1}');
      expect(fallback.status).toBe(404);
      expect(fallback.headers['x-fallback']).toBe('/fb');
      expect(JSON.parse(fallback.text)).toMatchObject({ detail: 'Nothing here', method: 'PROPFIND', body: { a: 1 } });
      const strict = await raw(`${env.strict.url}/api/nothing-here`, 'MKCOL');
      expect(strict.status).toBe(404);
      expect(JSON.parse(strict.text)).toEqual({ detail: 'Not Found' });
      expect((await raw(`${env.base.url}/api/nothing-here`, 'PROPFIND')).status).toBe(404);
    });

    it('answers TRACE on a path no route has as any method: the fallback, the JSON 404, or the app', async () => {
      const fallback = await raw(`${env.base.url}/api/fb/no/such`, 'TRACE');
      expect(fallback.status).toBe(404);
      expect(fallback.headers['x-fallback']).toBe('/fb');
      expect(JSON.parse(fallback.text)).toMatchObject({ detail: 'Nothing here', method: 'TRACE' });
      const strict = await raw(`${env.strict.url}/api/nothing-here`, 'TRACE');
      expect(strict.status).toBe(404);
      expect(JSON.parse(strict.text)).toEqual({ detail: 'Not Found' });
      // Outside every fallback the app decides; it has no route there, so 404 (never a 501 from us).
      expect((await raw(`${env.base.url}/api/nothing-here`, 'TRACE')).status).toBe(404);
    });

    it('matches case-sensitively and the trailing slash as written', async () => {
      expect((await api('/Items/1')).status).toBe(404);
      expect((await api('/items/1/')).status).toBe(404);
      // An empty segment is no parameter value: `/items/:id` does not answer `/items/`.
      expect((await api('/items/')).status).toBe(404);
      expect((await api('/users/')).status).toBe(200);
      expect((await api('/users')).status).toBe(404);
      expect((await fetch(`${env.base.url}/API/items/1`)).status).toBe(404);
    });
  });
}
