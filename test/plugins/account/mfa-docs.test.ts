// The OpenAPI information of the two-factor routes, checked as data and against real
// answers: each answer's status is documented and its body fits the schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDoc } from '@crudsmith/core';
import { koaHarness } from '../../adapters/koa-harness';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';
import { challengeFor, codeNow, nextStep, verify } from './mfa/helpers';
import { ajv, expectFits } from './doc-fit';

const MFA_ROUTES = [
  'POST /auth/mfa/verify',
  'POST /auth/mfa/challenge',
  'GET /auth/mfa',
  'POST /auth/mfa/totp/setup',
  'POST /auth/mfa/totp/confirm',
  'POST /auth/mfa/totp/disable',
  'POST /auth/mfa/recovery-codes/regenerate',
];

describe('two-factor route docs', () => {
  let env: AccountEnv;
  let docs: Map<string, RouteDoc>;
  beforeAll(async () => {
    env = await startAccountApp(koaHarness, 'sqlite', { mfa: { required: (user) => Boolean(user.is_superuser) } });
    docs = new Map(env.auth.router.map((r) => [`${r.method} ${r.path}`, r.doc!]));
  });
  afterAll(async () => env?.close());

  const fits = (route: string, res: { status: number; body: unknown }) =>
    expectFits(docs, route, res, { examples: true });

  it('documents every two-factor route: body, success, `detail` errors and security', () => {
    for (const route of MFA_ROUTES) {
      const doc = docs.get(route);
      expect(doc, route).toMatchObject({
        operationId: expect.stringMatching(/^account_mfa/),
        summary: expect.any(String),
        tags: ['auth'],
      });
      if (route.startsWith('POST')) {
        expect(() => ajv.compile(doc!.requestBody!), route).not.toThrow();
        // JSON only: no form content type, and the 415 a form gets.
        expect(doc!.requestBodyContentTypes, route).toBeUndefined();
        expect(doc!.responses!['415']!.schema?.examples, route).toEqual([
          { detail: 'Send the body as JSON (Content-Type: application/json)' },
        ]);
      }
      for (const [code, response] of Object.entries(doc!.responses ?? {})) {
        expect(() => ajv.compile(response.schema ?? {}), `${route} ${code}`).not.toThrow();
        if (code.startsWith('4')) expect(response.schema?.required, `${route} ${code}`).toEqual(['detail']);
      }
      const open = route.endsWith('/verify') || route.endsWith('/challenge');
      expect(doc!.security === undefined, route).toBe(open);
      if (!open) expect(Object.keys(doc!.responses!), route).toContain('401');
    }
  });

  it('fits the answers of the two-factor routes, and of /login and /token when they answer a challenge', async () => {
    await env.user('docmfa');
    const c = env.client();
    fits('GET /auth/mfa', await c.get('/auth/mfa'));
    fits('POST /auth/login', await c.login('docmfa', PASSWORD));
    fits('GET /auth/mfa', await c.get('/auth/mfa'));
    fits('POST /auth/mfa/totp/confirm', await c.post('/auth/mfa/totp/confirm', { code: '123456' }));
    fits('POST /auth/mfa/totp/setup', await c.post('/auth/mfa/totp/setup', { password: 'wrong password' }));
    fits('POST /auth/mfa/totp/setup', await c.post('/auth/mfa/totp/setup', {}));
    const setup = await c.post('/auth/mfa/totp/setup', { password: PASSWORD });
    fits('POST /auth/mfa/totp/setup', setup);
    fits('POST /auth/mfa/totp/confirm', await c.post('/auth/mfa/totp/confirm', { code: 'abcdef' }));
    fits(
      'POST /auth/mfa/totp/confirm',
      await c.post('/auth/mfa/totp/confirm', { code: await codeNow(setup.body.secret) }),
    );
    fits('POST /auth/mfa/totp/setup', await c.post('/auth/mfa/totp/setup', { password: PASSWORD }));
    nextStep();
    fits(
      'POST /auth/mfa/recovery-codes/regenerate',
      await c.post('/auth/mfa/recovery-codes/regenerate', { code: await codeNow(setup.body.secret) }),
    );
    fits('POST /auth/mfa/recovery-codes/regenerate', await c.post('/auth/mfa/recovery-codes/regenerate', {}));

    const challenge = await challengeFor(c, 'docmfa');
    fits('POST /auth/login', await c.login('docmfa', PASSWORD));
    fits(
      'POST /auth/token',
      await c.request('POST', '/auth/token', { form: { username: 'docmfa', password: PASSWORD } }),
    );
    fits('POST /auth/mfa/challenge', await c.request('POST', '/auth/mfa/challenge', { json: { challenge } }));
    fits('POST /auth/mfa/verify', await verify(c, challenge, '000000'));
    fits('POST /auth/mfa/verify', await verify(c, 'unknown', '000000'));
    fits('POST /auth/mfa/verify', await c.request('POST', '/auth/mfa/verify', { json: { challenge } }));
    nextStep();
    fits('POST /auth/mfa/verify', await verify(c, challenge, await codeNow(setup.body.secret)));
    const tokenChallenge = await challengeFor(c, 'docmfa', 'token');
    nextStep();
    fits('POST /auth/mfa/verify', await verify(c, tokenChallenge, await codeNow(setup.body.secret)));
    fits('POST /auth/mfa/totp/disable', await c.post('/auth/mfa/totp/disable', { code: '000000' }));
    nextStep();
    fits(
      'POST /auth/mfa/totp/disable',
      await c.post('/auth/mfa/totp/disable', { code: await codeNow(setup.body.secret) }),
    );
    fits('POST /auth/mfa/totp/disable', await c.post('/auth/mfa/totp/disable', { code: '000000' }));

    await env.user('docboss', { superuser: true });
    const boss = env.client();
    const setupChallenge = await boss.login('docboss', PASSWORD);
    fits('POST /auth/login', setupChallenge);
    const details = await boss.request('POST', '/auth/mfa/challenge', {
      json: { challenge: setupChallenge.body.challenge },
    });
    fits('POST /auth/mfa/challenge', details);
    const enrolled = await verify(boss, setupChallenge.body.challenge, await codeNow(details.body.setup.secret));
    fits('POST /auth/mfa/verify', enrolled);
    nextStep();
    fits(
      'POST /auth/mfa/totp/disable',
      await boss.post('/auth/mfa/totp/disable', { code: await codeNow(details.body.setup.secret) }),
    );
  });
});
