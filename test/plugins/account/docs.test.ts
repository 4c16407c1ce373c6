// The OpenAPI information of every account route (RouteDoc): operationId, body schema,
// responses with their `detail` errors, and security. Checked as data, then against
// real answers: each answer's status is documented, and its body fits the schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import type { RouteDescriptor, RouteDoc } from '@crudsmith/core';
import { account, type AccountOptions } from '@crudsmith/account';
import { koaHarness } from '../../adapters/koa-harness';
import { Client, PASSWORD, SECRET, User, startAccountApp, type AccountEnv } from './fixture';
import { ajv, expectFits } from './doc-fit';

const BODIES = new Set([
  'account_register',
  'account_login',
  'account_token',
  'account_refresh',
  'account_set_password',
  'account_change_password',
  'account_roles_create',
  'account_user_roles_set',
  'account_api_key_create',
]);

function routesOf(knex: Knex, options: Partial<AccountOptions>): RouteDescriptor[] {
  return account({ knex, userModel: User, secretKey: SECRET, path: '/auth', ...options }).router;
}

describe('account route docs', () => {
  let knex: Knex;
  beforeAll(() => {
    knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  });
  afterAll(async () => knex?.destroy());

  const configs: [string, Partial<AccountOptions>][] = [
    ['session + bearer (refresh in the body)', { session: { managementRoutes: true }, bearer: { refresh: 'body' } }],
    ['bearer only, refresh in a cookie', { session: false, bearer: { refresh: 'cookie' } }],
    ['session only, secure cookies', { session: { managementRoutes: true }, secureCookies: true }],
    ['session + bearer, roles and API keys', { bearer: { refresh: 'body' }, roleRoutes: true, apiKeys: true }],
  ];

  describe.each(configs)('%s', (_name, options) => {
    let routes: RouteDescriptor[];
    beforeAll(() => {
      routes = routesOf(knex, options);
    });

    it('gives every route a unique operationId, a summary and the auth tag', () => {
      const ids = routes.map((r) => r.doc?.operationId);
      expect(ids.every((id) => typeof id === 'string' && id === routes[ids.indexOf(id)].operation)).toBe(true);
      expect(new Set(ids).size).toBe(routes.length);
      for (const r of routes) expect(r.doc).toMatchObject({ summary: expect.any(String), tags: ['auth'] });
    });

    it('documents the body of every route that reads one, as a valid JSON schema', () => {
      for (const r of routes) {
        const doc = r.doc!;
        if (!BODIES.has(r.operation)) {
          expect(doc.requestBody, r.operation).toBeUndefined();
          continue;
        }
        expect(doc.requestBody, r.operation).toMatchObject({ type: 'object', properties: expect.any(Object) });
        expect(() => ajv.compile(doc.requestBody!), r.operation).not.toThrow();
      }
      const byOp = (op: string) => routes.find((r) => r.operation === `account_${op}`)?.doc;
      expect(byOp('register')!.requestBody).toMatchObject({
        additionalProperties: false,
        required: expect.arrayContaining(['username', 'password']),
      });
      expect(byOp('register')!.requestBody!.properties).not.toHaveProperty('is_superuser');
      expect(byOp('register')!.requestBody!.properties).toMatchObject({
        username: { type: 'string', maxLength: 20 },
        password: { minLength: 8, maxLength: 1024 },
      });
      // Only the cookie mode lets /refresh come without a body.
      const refresh = byOp('refresh');
      if (refresh)
        expect(refresh.requestBodyRequired).toBe((options.bearer as { refresh?: string }).refresh !== 'cookie');
      for (const op of ['login', 'token']) {
        const doc = byOp(op);
        if (doc) expect(doc.requestBodyContentTypes).toContain('application/x-www-form-urlencoded');
      }
    });

    it('documents a success and the error responses, each error a `detail` body', () => {
      for (const r of routes) {
        const responses = r.doc!.responses ?? {};
        const codes = Object.keys(responses);
        expect(
          codes.some((c) => c.startsWith('2')),
          r.operation,
        ).toBe(true);
        for (const [code, response] of Object.entries(responses)) {
          expect(response.description, `${r.operation} ${code}`).toEqual(expect.any(String));
          expect(() => ajv.compile(response.schema ?? {}), `${r.operation} ${code}`).not.toThrow();
          if (code.startsWith('4')) expect(response.schema?.required, `${r.operation} ${code}`).toEqual(['detail']);
        }
        if (BODIES.has(r.operation) && r.operation !== 'account_refresh') expect(codes, r.operation).toContain('422');
        // Authentication required (no empty alternative): a 401 is documented.
        if (r.doc!.security && !r.doc!.security.some((s) => Object.keys(s).length === 0))
          expect(codes, r.operation).toContain('401');
      }
    });

    it('states the security of every route: session cookie (+ X-CSRF-Token on unsafe verbs) or bearer', () => {
      const session = options.session !== false;
      const bearer = !!options.bearer;
      for (const r of routes) {
        const doc: RouteDoc = r.doc!;
        const open =
          ['account_register', 'account_login', 'account_token'].includes(r.operation) ||
          (r.operation === 'account_refresh' && (options.bearer as { refresh?: string }).refresh === 'body');
        if (open) {
          expect(doc.security, r.operation).toBeUndefined();
          continue;
        }
        expect(doc.security?.length, r.operation).toBeGreaterThan(0);
        for (const requirement of doc.security!) {
          for (const scheme of Object.keys(requirement))
            expect(doc.securitySchemes, `${r.operation} ${scheme}`).toHaveProperty(scheme);
          if ('accountSession' in requirement) {
            expect('accountCsrf' in requirement, r.operation).toBe(
              r.method !== 'GET' && r.operation !== 'account_csrf_refresh',
            );
          }
        }
        const names = doc.security!.flatMap((s) => Object.keys(s));
        if (['account_me', 'account_set_password', 'account_change_password'].includes(r.operation)) {
          expect(names.includes('accountSession'), r.operation).toBe(session);
          expect(names.includes('accountBearer'), r.operation).toBe(bearer);
        }
      }
      const any = Object.assign({}, ...routes.map((r) => r.doc!.securitySchemes ?? {}));
      if (session) {
        expect(any.accountSession).toEqual(
          expect.objectContaining({
            type: 'apiKey',
            in: 'cookie',
            name: options.secureCookies ? '__Host-cs_session' : 'cs_session',
          }),
        );
        expect(any.accountCsrf).toEqual(
          expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-CSRF-Token' }),
        );
      }
      if (bearer) {
        const me = routes.find((r) => r.operation === 'account_me')!.doc!;
        expect(me.securitySchemes!.accountBearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
      }
      // With API keys, /me alone of the account's routes takes one (in X-API-Key or as a bearer token).
      const keyed = routes.filter((r) => r.doc!.security?.some((s) => 'accountApiKey' in s)).map((r) => r.operation);
      expect(keyed).toEqual(options.apiKeys ? ['account_me'] : []);
      if (options.apiKeys) {
        const me = routes.find((r) => r.operation === 'account_me')!.doc!;
        expect(me.security).toEqual(expect.arrayContaining([{ accountApiKey: [] }, { accountApiKeyBearer: [] }]));
        expect(me.securitySchemes).toMatchObject({
          accountApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          accountApiKeyBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'csk_<lookup>_<secret>' },
        });
      }
    });
  });
});

describe('account route docs against real answers', () => {
  let env: AccountEnv;
  let docs: Map<string, RouteDoc>;
  beforeAll(async () => {
    env = await startAccountApp(koaHarness, 'sqlite', { lockout: { threshold: 2, baseSeconds: 30 } });
    docs = new Map(env.auth.router.map((r) => [`${r.method} ${r.path}`, r.doc!]));
    await env.user('docs');
  });
  afterAll(async () => env?.close());

  /** The answer's status is documented for the route, and its body fits that response's schema. */
  const fits = (route: string, res: { status: number; body: unknown }) =>
    expectFits(docs, route, res, { examples: true });

  it('fits the answers of the session routes', async () => {
    const c = env.client();
    fits(
      'POST /auth/register',
      await c.request('POST', '/auth/register', {
        json: { username: 'docs2', email: 'docs2@example.com', password: PASSWORD },
      }),
    );
    fits(
      'POST /auth/register',
      await c.request('POST', '/auth/register', {
        json: { username: 'docs2', email: 'other@example.com', password: PASSWORD },
      }),
    );
    fits(
      'POST /auth/register',
      await c.request('POST', '/auth/register', {
        json: { username: 'docs3', password: PASSWORD, is_superuser: true },
      }),
    );
    fits('GET /auth/me', await c.get('/auth/me'));
    fits('POST /auth/login', await c.login('docs', 'wrong password'));
    fits('POST /auth/login', await c.request('POST', '/auth/login', { form: { username: 'docs' } }));
    fits(
      'POST /auth/login',
      await c.request('POST', '/auth/login', {
        form: { username: 'docs', password: PASSWORD },
        headers: { 'sec-fetch-site': 'cross-site' },
      }),
    );
    fits('POST /auth/login', await c.login('docs', PASSWORD));
    fits('GET /auth/me', await c.get('/auth/me'));
    fits('GET /auth/sessions', await c.get('/auth/sessions'));
    fits('POST /auth/csrf/refresh', await c.request('POST', '/auth/csrf/refresh'));
    fits('POST /auth/logout', await c.request('POST', '/auth/logout'));
    fits('DELETE /auth/sessions/:id', await c.del('/auth/sessions/nope'));
    fits('POST /auth/set-password', await c.post('/auth/set-password', { new_password: 'another passphrase' }));
    fits(
      'POST /auth/change-password',
      await c.post('/auth/change-password', { current_password: 'wrong one', new_password: 'another passphrase' }),
    );
    fits(
      'POST /auth/change-password',
      await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'password' }),
    );
    fits('POST /auth/logout-all', await c.post('/auth/logout-all?keep_current=true'));
    fits('POST /auth/logout', await c.post('/auth/logout'));
    fits('POST /auth/logout', await c.post('/auth/logout'));
    // Two wrong passwords with threshold 2: the third attempt is locked out.
    await c.login('docs2', 'wrong password');
    await c.login('docs2', 'wrong password');
    fits('POST /auth/login', await c.login('docs2', PASSWORD));
  });

  it('fits the answers of the bearer routes', async () => {
    const c = new Client(env.server.url);
    const token = await c.request('POST', '/auth/token', { form: { username: 'docs', password: PASSWORD } });
    fits('POST /auth/token', token);
    fits(
      'POST /auth/token',
      await c.request('POST', '/auth/token', { form: { username: 'docs', password: 'nope nope' } }),
    );
    fits('GET /auth/me', await c.get('/auth/me', { authorization: `Bearer ${token.body.access_token}` }));
    fits('GET /auth/me', await c.get('/auth/me', { authorization: 'Bearer not.a.token' }));
    const refreshed = await c.request('POST', '/auth/refresh', { json: { refresh_token: token.body.refresh_token } });
    fits('POST /auth/refresh', refreshed);
    fits(
      'POST /auth/refresh',
      await c.request('POST', '/auth/refresh', { json: { refresh_token: token.body.refresh_token } }),
    );
    fits('POST /auth/refresh', await c.request('POST', '/auth/refresh', { json: {} }));
    fits('POST /auth/refresh', await c.request('POST', '/auth/refresh', { json: { refresh_token: 5 } }));
  });
});
