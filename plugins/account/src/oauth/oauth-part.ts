import { ConfigurationError, ERROR_SCHEMA } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { CHALLENGE_ANSWER, object, ok, text, type RouteDocPart, withAccountDocs } from '../openapi';
import { oauthRoutes } from './oauth-routes';
import { OAuthStore, oauthMigration } from './oauth-store';
import { OidcProvider } from './oidc-provider';
import type { FinishSignIn } from '../sign-in';
import type { AccountPart } from '../part';

const CODES = [
  'invalid_state',
  'access_denied',
  'provider_error',
  'email_missing',
  'email_unsupported',
  'email_unverified',
  'account_unverified',
  'identity_conflict',
  'account_deleted',
];

/**
 * OpenID Connect sign-in's part of the plugin: the routes when `oauthProviders` is set,
 * its tables always (so adding a provider later needs no migration of its own).
 */
export function oauthPart(core: AccountCore, finishSignIn: FinishSignIn, prefix: string): AccountPart {
  const { options } = core;
  const tables = { flows: core.tables.oauthFlows, identities: core.tables.identities };
  const migrations = { '0011_oauth': oauthMigration(tables) };
  const configured = Object.entries(options.oauthProviders ?? {});
  if (configured.length === 0) return { routes: [], migrations };
  if (!core.session) throw new ConfigurationError('account: OAuth providers need the session transport');
  if (!options.redirectBaseUrl || !URL.canParse(options.redirectBaseUrl))
    throw new ConfigurationError(
      'account: OAuth providers need redirectBaseUrl, the public base URL the provider sends the browser back to',
    );
  const paths = {
    authorize: '/oauth/:provider/authorize',
    callback: '/oauth/:provider/callback',
    ...options.oauthPaths,
  };
  for (const path of Object.values(paths))
    if (!path.startsWith('/') || !path.includes(':provider'))
      throw new ConfigurationError(`account: oauthPaths '${path}' must start with / and hold :provider`);
  const base = options.redirectBaseUrl.replace(/\/+$/, '');
  const providers = new Map(
    configured.map(([name, provider]) => [
      name,
      new OidcProvider(
        name,
        provider,
        `${base}${prefix}${paths.callback.replace(':provider', encodeURIComponent(name))}`,
      ),
    ]),
  );
  // Ten minutes from the provider's page back to the callback: enough to sign in there, short for a stolen state.
  const flowSeconds = 600;
  const store = new OAuthStore(options.knex, tables, flowSeconds * 1000);
  const json = options.oauthResponseMode === 'json';
  const routes = oauthRoutes(core, finishSignIn, store, {
    providers,
    responseMode: json ? 'json' : 'redirect',
    paths,
    flowSeconds,
    rateLimit: options.oauthRateLimit ?? { limit: 120, periodSeconds: 600 },
    warn: (message, details) => console.warn(message, details),
  });
  return { routes: withAccountDocs(routes, oauthDocs([...providers.keys()], json)), migrations };
}

function oauthDocs(providers: string[], json: boolean): Record<string, RouteDocPart> {
  const provider = {
    name: 'provider',
    in: 'path',
    required: true,
    schema: { enum: providers },
    description: 'A configured provider (an unknown one is 400)',
  };
  const unknown = {
    description: 'Unknown provider',
    schema: { ...ERROR_SCHEMA, examples: [{ detail: 'Unknown OAuth provider' }] },
  };
  const failure = {
    description: `The sign-in failed; detail is one of ${CODES.join(', ')}`,
    schema: { ...ERROR_SCHEMA, examples: CODES.map((detail) => ({ detail })) },
  };
  const limited = {
    description: 'Too many sign-ins started from this address (oauthRateLimit); Retry-After says when to try again',
    schema: ERROR_SCHEMA,
  };
  const location = { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } };
  return {
    oauth_authorize: {
      parameters: [
        provider,
        {
          name: 'redirect_to',
          in: 'query',
          required: false,
          schema: text(),
          description: 'A same-origin path to land on afterwards (default /); anything else is dropped',
        },
      ],
      responses: json
        ? {
            '200': ok(
              'The provider URL to send the browser to; the flow cookie is set',
              object({ authorization_url: text({ format: 'uri' }) }, ['authorization_url']),
            ),
            '400': { ...unknown, description: 'Unknown provider, or the provider cannot be reached (provider_error)' },
            '429': limited,
          }
        : {
            '307': {
              description:
                'To the provider (authorization code, PKCE S256, state, nonce); sets the HttpOnly flow cookie; on a provider failure, to redirect_to?error=provider_error',
              headers: location,
            },
            '400': unknown,
            '429': limited,
          },
    },
    oauth_callback: {
      parameters: [
        provider,
        { name: 'code', in: 'query', required: false, schema: text() },
        { name: 'state', in: 'query', required: false, schema: text() },
      ],
      responses: json
        ? {
            '200': ok(
              'Signed in: the session cookies are set; for an account with two-factor, the challenge object instead (no cookie), finished at /mfa/verify',
              {
                oneOf: [
                  object({ csrf_token: text(), redirect_to: text() }, ['csrf_token', 'redirect_to']),
                  CHALLENGE_ANSWER,
                ],
              },
            ),
            '400': failure,
          }
        : {
            '307': {
              description:
                'Signed in: to redirect_to with the session cookies; for an account with two-factor, to redirect_to#mfa_challenge=<challenge>&expires_in=<seconds>[&setup=1] without a session, finished at /mfa/verify; failed: to redirect_to?error=<code> (invalid_state, access_denied, provider_error, email_missing, email_unsupported, email_unverified, account_unverified, identity_conflict, account_deleted)',
              headers: location,
            },
            '400': unknown,
          },
    },
  };
}
