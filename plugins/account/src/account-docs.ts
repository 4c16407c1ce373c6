import { columnJsonSchema, type JsonSchema } from '@crudsmith/core';
import type { AccountCore } from './account-core';
import { MESSAGE, RETRY_AFTER, error, object, ok, text, validation, type RouteDocPart } from './openapi';
import { accountSecurity } from './security-docs';

// The docs of the account's own routes (registration, the password routes, the session and
// bearer routes); the feature folders document theirs beside them.

const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'];
const SET_COOKIE = {
  'Set-Cookie': { description: 'The cookies this answer sets or clears', schema: { type: 'string' } },
};
const CSRF_TOKEN: JsonSchema = {
  type: 'object',
  required: ['csrf_token'],
  properties: { csrf_token: { type: 'string' } },
};

/** The docs of every account route, by operation (without the `account_` prefix). */
export function accountDocs(core: AccountCore, registerFields: string[]): Record<string, RouteDocPart> {
  const { users, passwords } = core;
  const column = (name: string): JsonSchema => {
    const info = users.info.columns.get(name);
    if (!info) return {};
    const schema = columnJsonSchema(info);
    return info.maxLength !== undefined ? { ...schema, maxLength: info.maxLength } : schema;
  };
  const password = text({
    minLength: passwords.minLength,
    maxLength: passwords.maxLength,
    description: "NFKC-normalised; checked against common passwords and the account's own names",
  });

  const { secured, sessionOnly, anyCredential, orApiKey } = accountSecurity(core);

  const notAuthenticated = error(
    'No valid session cookie or bearer token',
    'Not authenticated',
    'Invalid or expired token',
  );
  const sessionMissing = error('No valid session cookie', 'Not authenticated');
  const csrfRefused = error(
    'A session request with an unsafe verb lacks the matching X-CSRF-Token header',
    'CSRF token missing or invalid',
  );
  const lockedOut = {
    ...error(
      'Locked out after repeated failed sign-ins (per account, escalating)',
      'Too many failed sign-in attempts; try again later',
    ),
    headers: RETRY_AFTER,
  };
  const signInFailed = error(
    'Wrong password, unknown or deleted account: one uniform answer',
    'Incorrect username or password',
  );
  const credentials = (extra: Record<string, JsonSchema> = {}) =>
    object({ username: text({ description: 'Username or e-mail address, either case' }), password: text(), ...extra }, [
      'username',
      'password',
    ]);

  const registerProperties: Record<string, JsonSchema> = { username: column(users.columns.username), password };
  if (users.columns.email) registerProperties.email = { ...column(users.columns.email), format: 'email' };
  for (const field of registerFields) if (field !== 'password') registerProperties[field] = column(field);
  const registered: Record<string, JsonSchema> = {
    id: column(users.columns.id),
    username: column(users.columns.username),
  };
  if (users.columns.email) registered.email = column(users.columns.email);
  for (const field of registerFields) if (field !== 'password') registered[field] = column(field);

  const tokenAnswer = object(
    {
      access_token: text(),
      token_type: { const: 'bearer' },
      expires_in: { type: 'integer', description: 'Seconds the access token lives' },
      ...(core.bearer?.refresh === 'body'
        ? { refresh_token: text({ description: 'Opaque, single use: each /refresh answers a new one' }) }
        : {}),
    },
    ['access_token', 'token_type', 'expires_in', ...(core.bearer?.refresh === 'body' ? ['refresh_token'] : [])],
  );
  const crossSiteRefused = error(
    'A sign-in from a page of another site (Sec-Fetch-Site, else Origin, else Referer) whose origin is not trusted',
    'Cross-site sign-in refused',
  );
  const refreshFailed = error(
    'Missing, unknown, expired or revoked refresh token; a reused one revokes its whole family',
    'Refresh token missing',
    'Invalid or expired refresh token',
    'Refresh token reused; its whole family is revoked',
  );
  const sessionInfo = object(
    {
      id: text({ description: 'The public handle (never the session key)' }),
      current: { type: 'boolean' },
      created_at: text({ format: 'date-time' }),
      last_seen_at: text({ format: 'date-time' }),
      expires_at: text({ format: 'date-time' }),
      user_agent: { type: ['string', 'null'] },
      ip_address: { type: ['string', 'null'] },
    },
    ['id', 'current', 'created_at', 'last_seen_at', 'expires_at', 'user_agent', 'ip_address'],
  );

  return {
    register: {
      requestBody: object(registerProperties, ['username', 'password', ...(users.columns.email ? ['email'] : [])], {
        additionalProperties: false,
      }),
      responses: {
        '201': ok('The account, public fields only', object(registered, Object.keys(registered))),
        '409': error(
          'The username or e-mail is taken, whatever its case',
          'Username already registered',
          'Email already registered',
        ),
        '422': validation(
          'a missing or extra field (privileged ones included), a value longer than its column, or a password the policy refuses',
        ),
        '429': {
          ...error(
            'Too many registrations from this address',
            'Too many registrations from this address; try again later',
          ),
          headers: RETRY_AFTER,
        },
      },
    },
    me: {
      ...orApiKey(false),
      responses: {
        '200': ok(
          'The signed-in principal',
          object(
            {
              id: column(users.columns.id),
              scopes: { type: 'array', items: text() },
              transport: { enum: ['session', 'bearer', ...(core.apiKeys ? ['api-key'] : [])] },
            },
            ['id', 'scopes', 'transport'],
          ),
        ),
        '401': notAuthenticated,
      },
    },
    set_password: {
      ...anyCredential(true),
      requestBody: object({ new_password: password }, ['new_password']),
      responses: {
        '200': ok('Password set', MESSAGE),
        '400': error('The account already has a password', 'This account already has a password; use /change-password'),
        '401': notAuthenticated,
        '403': error(
          'No recent sign-in, or the CSRF header is missing',
          'Sign in again first: this needs a recent sign-in',
          'CSRF token missing or invalid',
        ),
        '422': validation('a missing field or a password the policy refuses'),
      },
    },
    change_password: {
      ...anyCredential(true),
      requestBody: object({ current_password: text(), new_password: password }, ['current_password', 'new_password']),
      responses: {
        '200': ok('Password changed: every access token, refresh token and other session of the user ends', MESSAGE),
        '400': error('The account has no usable password', 'This account has no usable password; use /set-password'),
        '401': error(
          'Not signed in, or the current password is wrong (counts toward the lockout)',
          'Not authenticated',
          'Invalid or expired token',
          'Current password is incorrect',
        ),
        '403': csrfRefused,
        '422': validation('a missing field or a new password the policy refuses'),
        '429': lockedOut,
      },
    },
    login: {
      requestBody: credentials(),
      requestBodyContentTypes: FORM_OR_JSON,
      responses: {
        '200': ok('Signed in: a new session (HttpOnly cookie) and the readable CSRF cookie', CSRF_TOKEN, SET_COOKIE),
        '401': signInFailed,
        '403': crossSiteRefused,
        '422': validation('username or password missing'),
        '429': lockedOut,
      },
    },
    logout: {
      ...sessionOnly(true),
      responses: {
        '200': ok('Signed out; the session, CSRF (and refresh) cookies are cleared', MESSAGE, SET_COOKIE),
        '401': sessionMissing,
        '403': csrfRefused,
      },
    },
    sessions: {
      ...sessionOnly(false),
      responses: {
        '200': ok("The user's live sessions, oldest first", { type: 'array', items: sessionInfo }),
        '401': sessionMissing,
      },
    },
    session_revoke: {
      ...sessionOnly(true),
      parameters: [
        { name: 'id', in: 'path', required: true, schema: text(), description: 'The public handle /sessions lists' },
      ],
      responses: {
        '200': ok('The session ended', MESSAGE),
        '401': sessionMissing,
        '403': csrfRefused,
        '404': error("No such session among the caller's own", 'Session not found'),
      },
    },
    logout_all: {
      ...sessionOnly(true),
      parameters: [
        {
          name: 'keep_current',
          in: 'query',
          required: false,
          schema: { type: 'boolean', default: false },
          description: "true keeps the caller's own session",
        },
      ],
      responses: {
        '200': ok(
          'Every session ended (but the current one with keep_current=true), and every refresh and access token',
          object({ revoked: { type: 'integer' } }, ['revoked']),
          SET_COOKIE,
        ),
        '401': sessionMissing,
        '403': csrfRefused,
      },
    },
    csrf_refresh: {
      ...sessionOnly(false),
      responses: {
        '200': ok('A new CSRF token, also in its cookie; no header needed', CSRF_TOKEN, SET_COOKIE),
        '400': error('CSRF protection is off', 'CSRF protection is disabled'),
        '401': sessionMissing,
      },
    },
    token: {
      requestBody: credentials({
        scope: text({ description: 'Space-separated scopes to ask for (default: all the user holds)' }),
      }),
      requestBodyContentTypes: FORM_OR_JSON,
      responses: {
        '200': ok(
          core.bearer?.refresh === 'cookie'
            ? 'The access token; the refresh token in its HttpOnly cookie'
            : 'The access token (and refresh token)',
          tokenAnswer,
          core.bearer?.refresh === 'cookie' ? SET_COOKIE : undefined,
        ),
        '401': signInFailed,
        ...(core.bearer?.refresh === 'cookie' ? { '403': crossSiteRefused } : {}),
        '422': validation('username or password missing'),
        '429': lockedOut,
      },
    },
    refresh: {
      ...(core.bearer?.refresh === 'cookie' ? secured([{ accountRefreshCookie: [] }, {}]) : {}),
      requestBody: object({ refresh_token: text() }, core.bearer?.refresh === 'cookie' ? [] : ['refresh_token']),
      // In cookie mode the token comes in its cookie: no body at all is the usual request.
      requestBodyRequired: core.bearer?.refresh !== 'cookie',
      responses: {
        '200': ok(
          'A new access token and a new refresh token (the one given is used up)',
          tokenAnswer,
          core.bearer?.refresh === 'cookie' ? SET_COOKIE : undefined,
        ),
        '401': refreshFailed,
        '422': validation('refresh_token is not a string'),
      },
    },
    bearer_logout: {
      ...secured([{ accountRefreshCookie: [] }, {}]),
      responses: {
        '200': ok("Signed out: the refresh cookie's family is revoked and the cookie cleared", MESSAGE, SET_COOKIE),
      },
    },
  };
}
