// The OpenAPI information of the OpenID Connect routes, in both answer modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020';
import knexFactory, { type Knex } from 'knex';
import { account } from '@crudsmith/account';
import { SECRET, User } from './fixture';

const ajv = new Ajv2020({ strict: false });

describe('OpenID Connect route docs', () => {
  let knex: Knex;
  beforeAll(() => {
    knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  });
  afterAll(async () => knex?.destroy());

  const routes = (mode: 'redirect' | 'json') =>
    account({
      knex,
      userModel: User,
      secretKey: SECRET,
      path: '/auth',
      redirectBaseUrl: 'https://app.example.com',
      oauthResponseMode: mode,
      oauthProviders: {
        oidc: { issuer: 'https://id.example.com', clientId: 'app' },
        corp: { issuer: 'http://127.0.0.1:9999', clientId: 'app' },
      },
    }).router.filter((r) => r.operation.startsWith('account_oauth_'));

  it.each(['redirect', 'json'] as const)(
    'documents the provider parameter, the answers and the error codes (%s mode)',
    (mode) => {
      const docs = routes(mode);
      expect(docs.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /auth/oauth/:provider/authorize',
        'GET /auth/oauth/:provider/callback',
      ]);
      for (const r of docs) {
        const doc = r.doc!;
        expect(doc.parameters?.[0]).toMatchObject({
          name: 'provider',
          in: 'path',
          required: true,
          schema: { enum: ['oidc', 'corp'] },
        });
        const codes = Object.keys(doc.responses ?? {});
        expect(codes).toEqual([
          mode === 'json' ? '200' : '307',
          '400',
          ...(r.path.endsWith('/authorize') ? ['429'] : []),
        ]);
        for (const response of Object.values(doc.responses ?? {}))
          expect(() => ajv.compile(response.schema ?? {})).not.toThrow();
        expect(doc.responses!['400'].schema?.required).toEqual(['detail']);
      }
      const callback = docs[1].doc!;
      const described = JSON.stringify(callback.responses);
      for (const code of [
        'invalid_state',
        'access_denied',
        'provider_error',
        'email_missing',
        'email_unsupported',
        'email_unverified',
        'account_unverified',
        'identity_conflict',
        'account_deleted',
      ])
        expect(described).toContain(code);
    },
  );

  it('refuses a configuration it cannot serve, at startup', () => {
    const base = { knex, userModel: User, secretKey: SECRET };
    expect(() =>
      account({
        ...base,
        oauthProviders: { oidc: { issuer: 'http://id.example.com', clientId: 'x' } },
        redirectBaseUrl: 'https://a.example',
      }),
    ).toThrow(/must be https/);
    expect(() =>
      account({ ...base, oauthProviders: { oidc: { issuer: 'https://id.example.com', clientId: 'x' } } }),
    ).toThrow(/redirectBaseUrl/);
    expect(() =>
      account({
        ...base,
        session: false,
        bearer: true,
        oauthProviders: { oidc: { issuer: 'https://id.example.com', clientId: 'x' } },
        redirectBaseUrl: 'https://a.example',
      }),
    ).toThrow(/session transport/);
    expect(() =>
      account({
        ...base,
        oauthProviders: { oidc: { issuer: 'https://id.example.com', clientId: 'x' } },
        redirectBaseUrl: 'https://a.example',
        oauthPaths: { callback: '/cb' },
      }),
    ).toThrow(/:provider/);
  });
});
