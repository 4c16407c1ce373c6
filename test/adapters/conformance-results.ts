// Adapter conformance: client addresses, how each adapter writes a neutral result, and errors.
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@crudsmith/core';
import { clientOf, readJson, type SuiteEnv } from './conformance-kit';
import { routes } from './conformance-routes';

/** Client addresses, result translation and error rendering. */
export function resultTranslation(env: SuiteEnv): void {
  const { api } = clientOf(env);

  describe('client address', () => {
    it('ignores X-Forwarded-For by default', async () => {
      const json = await readJson(await api('/items/1', { headers: { 'X-Forwarded-For': '203.0.113.9' } }));
      expect(json.clientAddress).toBe('127.0.0.1');
    });

    it('takes the right-most untrusted hop when the peer is a trusted proxy', async () => {
      const json = await readJson(
        await fetch(`${env.proxied.url}/items/1`, {
          headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9, 10.1.2.3' },
        }),
      );
      expect(json.clientAddress).toBe('203.0.113.9');
    });

    it('refuses a trusted proxy that is not an address or range, at mount time', async () => {
      for (const proxy of ['proxy.local', '10.0.0.0/']) {
        await expect(async () => env.harness.mount(routes(), { trustedProxies: [proxy] }), proxy).rejects.toThrow(
          ConfigurationError,
        );
      }
    });
  });

  describe('result translation', () => {
    it('sends json null as the body null with the status asked', async () => {
      const res = await api('/created-null');
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe('null');
    });

    it('sends a 204 without a body or a Content-Type', async () => {
      const res = await api('/gone/1', { method: 'DELETE' });
      expect(res.status).toBe(204);
      expect(res.headers.get('content-type')).toBeNull();
      expect(await res.text()).toBe('');
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
      expect(env.logged.some((error) => error instanceof Error && error.message === 'secret database password')).toBe(
        true,
      );
    });

    it('renders a value JSON cannot encode as a 500 JSON detail', async () => {
      const res = await api('/bigint');
      expect(res.status).toBe(500);
      expect(await readJson(res)).toEqual({ detail: 'Internal server error' });
    });
  });
}
