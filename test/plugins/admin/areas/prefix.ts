import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '@crudsmith/admin';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { SECRET, seed, startAdminApp, type AdminEnv } from '../fixture';

/** The admin mounted under an adapter prefix (the Quick start's `prefix: '/api'`), reached at its public path. */
export function prefixArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin under an adapter prefix on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine, { publicPath: '/api/admin' }, { prefix: '/api' });
      await seed(env.db, 2);
    });
    afterAll(async () => env?.close());

    it('sends a visitor to the login page under the prefix, and the session cookie is limited to it', async () => {
      const client = env.client();
      const first = await client.get('/admin/items/');
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/api/admin/login');
      const login = await client.get('/admin/login');
      expect(login.status).toBe(200);
      expect(login.text).toContain('action="/api/admin/login"');
      expect(login.text).toMatch(/href="\/api\/admin\/static\/admin\.css\?v=/);
      const token = /name="csrf_token" value="([^"]+)"/.exec(login.text)![1];
      const signedIn = await client.request('POST', '/admin/login', {
        form: { csrf_token: token, username: 'root', password: 'correct horse battery staple' },
      });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get('location')).toBe('/api/admin/');
      expect(signedIn.setCookies.get('cs_admin')).toMatch(/Path=\/api\/admin/i);
    });

    it('serves every page, link, form and asset under the prefix', async () => {
      const client = await env.signedIn();
      const list = await client.get('/admin/items/');
      expect(list.status).toBe(200);
      expect(list.text).toContain('href="/api/admin/items/create_page"');
      expect(list.text).not.toMatch(/(href|action|hx-get|hx-post|src)="\/admin\//);
      const css = /href="\/api(\/admin\/static\/admin\.css\?v=[^"]+)"/.exec(list.text)![1];
      expect((await client.get(css)).status).toBe(200);
      const created = await client.postForm('/admin/items/form_create', { name: 'under a prefix' });
      expect(created.status).toBe(303);
      expect(created.headers.get('location')).toBe('/api/admin/items/');
      expect((await client.get('/admin/crud/items')).json.total_count).toBe(3);
    });

    it('refuses a public path that does not end with the mount path, at startup', () => {
      expect(() =>
        admin({ knex: env.db.knex, secretKey: SECRET, models: {}, mountPath: '/admin', publicPath: '/api/panel' }),
      ).toThrow(/publicPath '\/api\/panel' must end with the mountPath '\/admin'/);
    });
  });
}
