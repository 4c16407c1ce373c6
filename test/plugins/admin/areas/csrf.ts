import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, type AdminEnv, type Client } from '../fixture';

/** Every unsafe request needs the session's CSRF token; without it, 403 and nothing changes. */
export function csrfArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin CSRF on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    beforeAll(async () => {
      env = await startAdminApp(harness, engine);
      await seed(env.db, 3);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    const count = async () => Number((await env.db.knex('items').count({ n: '*' }).first())!.n);

    it('refuses a form post without the token, or with another, with 403 and writes nothing', async () => {
      const missing = await client.request('POST', '/admin/items/form_create', { form: { name: 'forged' } });
      const wrong = await client.request('POST', '/admin/items/form_create', {
        form: { name: 'forged', csrf_token: 'A'.repeat(43) },
      });
      for (const answer of [missing, wrong]) {
        expect(answer.status).toBe(403);
        expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      }
      expect(await count()).toBe(3);
    });

    it('refuses a bulk delete without the header with 403 and deletes nothing', async () => {
      const answer = await client.request('DELETE', '/admin/items/bulk-delete', { json: { ids: [1, 2] } });
      expect(answer.status).toBe(403);
      expect(Number((await env.db.knex('items').where({ is_deleted: true }).count({ n: '*' }).first())!.n)).toBe(0);
    });

    it("refuses another session's token", async () => {
      const other = await env.signedIn();
      const answer = await client.request('POST', '/admin/items/form_create', {
        form: { name: 'crossed', csrf_token: other.csrf },
      });
      expect(answer.status).toBe(403);
      expect(await count()).toBe(3);
    });

    it('accepts the token as the hidden field and as the X-CSRF-Token header', async () => {
      expect((await client.postForm('/admin/items/form_create', { name: 'by field' })).status).toBe(303);
      const header = await client.request('POST', '/admin/items/form_create', {
        form: { name: 'by header' },
        headers: { 'x-csrf-token': client.csrf },
      });
      expect(header.status).toBe(303);
      expect(await count()).toBe(5);
    });

    it('keeps no event log unless eventIntegration is on', async () => {
      expect(Number((await env.db.knex('admin_events').count({ n: '*' }).first())!.n)).toBe(0);
    });
  });
}
