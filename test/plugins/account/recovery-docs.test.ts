// The OpenAPI information of the e-mail and recovery routes: bodies, security, and every
// answer the routes give documented with a body that fits its schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDoc } from '@crudsmith/core';
import { koaHarness } from '../../adapters/koa-harness';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';
import { outboxMailbox, tokenOf } from './recovery/mailboxes';
import { ajv, expectFits } from './doc-fit';

const OPERATIONS = [
  'verify_request',
  'verify_confirm',
  'reset_request',
  'reset_confirm',
  'change_request',
  'change_confirm',
];

describe('recovery route docs', () => {
  let env: AccountEnv;
  let box: Awaited<ReturnType<typeof outboxMailbox>>;
  let docs: Map<string, RouteDoc>;
  beforeAll(async () => {
    box = await outboxMailbox();
    env = await startAccountApp(koaHarness, 'sqlite', {
      recovery: {
        mail: box.transport,
        publicUrl: 'http://127.0.0.1:8000',
        requestRateLimit: { limit: 4, periodSeconds: 3600 },
      },
    });
    docs = new Map(env.auth.router.map((r) => [`${r.method} ${r.path}`, r.doc!]));
  });
  afterAll(async () => {
    await env?.close();
    await box?.close();
  });

  /** The answer's status is documented for the route, and its body fits that response's schema. */
  const fits = (route: string, res: { status: number; body: unknown }) => expectFits(docs, route, res);

  it('documents a JSON body, a success and `detail` errors for each route; change-request needs a credential', () => {
    const routes = env.auth.router.filter((r) => OPERATIONS.includes(r.operation.replace(/^account_/, '')));
    expect(routes.map((r) => r.operation.replace(/^account_/, '')).sort()).toEqual([...OPERATIONS].sort());
    for (const r of routes) {
      const doc = r.doc!;
      expect(doc.requestBody, r.operation).toMatchObject({ type: 'object', required: expect.any(Array) });
      expect(() => ajv.compile(doc.requestBody!), r.operation).not.toThrow();
      for (const [code, response] of Object.entries(doc.responses ?? {}))
        if (code.startsWith('4')) expect(response.schema?.required, `${r.operation} ${code}`).toEqual(['detail']);
      expect(Object.keys(doc.responses ?? {}), r.operation).toContain('422');
      // JSON only: no form content type, and the 415 a form gets.
      expect(doc.requestBodyContentTypes, r.operation).toBeUndefined();
      expect(doc.responses!['415']!.schema?.examples, r.operation).toEqual([
        { detail: 'Send the body as JSON (Content-Type: application/json)' },
      ]);
      if (r.operation === 'account_change_request') {
        expect(doc.security!.flatMap((s) => Object.keys(s)).sort()).toEqual([
          'accountBearer',
          'accountCsrf',
          'accountSession',
        ]);
        expect(Object.keys(doc.securitySchemes!).sort()).toEqual(['accountBearer', 'accountCsrf', 'accountSession']);
      } else {
        expect(doc.security, r.operation).toBeUndefined();
      }
    }
  });

  it('fits the answers of the routes', async () => {
    await env.user('doris');
    const c = env.client();
    fits(
      'POST /auth/email/verify-request',
      await c.request('POST', '/auth/email/verify-request', { json: { email: 'doris@example.com' } }),
    );
    fits(
      'POST /auth/email/verify-request',
      await c.request('POST', '/auth/email/verify-request', { json: { email: 'nope' } }),
    );
    await env.auth.settled();
    fits(
      'POST /auth/email/verify-confirm',
      await c.request('POST', '/auth/email/verify-confirm', {
        json: { token: tokenOf((await box.to('doris@example.com'))[0]) },
      }),
    );
    fits(
      'POST /auth/email/verify-confirm',
      await c.request('POST', '/auth/email/verify-confirm', { json: { token: 'used-or-unknown' } }),
    );
    fits('POST /auth/email/verify-confirm', await c.request('POST', '/auth/email/verify-confirm', { json: {} }));
    fits(
      'POST /auth/password/reset-request',
      await c.request('POST', '/auth/password/reset-request', {
        json: { email: 'doris@example.com', redirect_to: '/home' },
      }),
    );
    await env.auth.settled();
    const reset = tokenOf((await box.to('doris@example.com')).at(-1));
    fits(
      'POST /auth/password/reset-confirm',
      await c.request('POST', '/auth/password/reset-confirm', { json: { token: reset, new_password: 'short' } }),
    );
    fits(
      'POST /auth/password/reset-confirm',
      await c.request('POST', '/auth/password/reset-confirm', {
        json: { token: reset, new_password: 'a new passphrase here' },
      }),
    );
    fits(
      'POST /auth/password/reset-confirm',
      await c.request('POST', '/auth/password/reset-confirm', {
        json: { token: reset, new_password: 'a new passphrase here' },
      }),
    );
    fits(
      'POST /auth/email/change-request',
      await c.request('POST', '/auth/email/change-request', {
        json: { new_email: 'd@example.com', password: PASSWORD },
      }),
    );
    await c.login('doris', 'a new passphrase here');
    fits(
      'POST /auth/email/change-request',
      await c.post('/auth/email/change-request', { new_email: 'doris2@example.com', password: 'wrong' }),
    );
    fits(
      'POST /auth/email/change-request',
      await c.post('/auth/email/change-request', {
        new_email: 'doris2@example.com',
        password: 'a new passphrase here',
      }),
    );
    fits(
      'POST /auth/email/change-request',
      await c.post('/auth/email/change-request', {
        new_email: 'doris3@example.com',
        password: 'a new passphrase here',
      }),
    );
    await env.auth.settled();
    fits(
      'POST /auth/email/change-confirm',
      await c.request('POST', '/auth/email/change-confirm', {
        json: { token: tokenOf((await box.to('doris2@example.com'))[0]) },
      }),
    );
    fits(
      'POST /auth/email/change-confirm',
      await c.request('POST', '/auth/email/change-confirm', { json: { token: 'nope' } }),
    );
  });
});
