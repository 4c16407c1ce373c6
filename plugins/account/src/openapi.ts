import {
  ERROR_SCHEMA,
  VALIDATION_ERROR_SCHEMA,
  columnJsonSchema,
  type JsonSchema,
  type RouteDescriptor,
  type RouteDoc,
} from '@crudsmith/core';
import type { AccountCore } from './account-core';

// OpenAPI information of the account routes (an app publishes it, for example in every
// version's document through the versioning plugin's `docs.unversioned`), in core's
// RouteDoc shape: bodies, responses with their `detail` errors, and security.

/** The parts of a RouteDoc a route adds beside its operationId, summary and tags. */
export type RouteDocPart = Omit<RouteDoc, 'operationId' | 'summary' | 'tags'>;
type Responses = NonNullable<RouteDoc['responses']>;

const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'];
export const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds until the next attempt is allowed', schema: { type: 'integer' } },
};
const SET_COOKIE = {
  'Set-Cookie': { description: 'The cookies this answer sets or clears', schema: { type: 'string' } },
};
export const MESSAGE: JsonSchema = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
};
const CSRF_TOKEN: JsonSchema = {
  type: 'object',
  required: ['csrf_token'],
  properties: { csrf_token: { type: 'string' } },
};

/** An error answer: the `{detail}` body, with the details this route gives as examples. */
export function error(description: string, ...details: string[]): Responses[string] {
  return {
    description,
    schema: details.length > 0 ? { ...ERROR_SCHEMA, examples: details.map((detail) => ({ detail })) } : ERROR_SCHEMA,
  };
}

export const validation = (what: string): Responses[string] => ({
  description: `Validation error: ${what}`,
  schema: VALIDATION_ERROR_SCHEMA,
});
export const ok = (
  description: string,
  schema: JsonSchema,
  headers?: Record<string, Record<string, unknown>>,
): Responses[string] => ({ description, schema, ...(headers ? { headers } : {}) });
export const object = (
  properties: Record<string, JsonSchema>,
  required: string[],
  extra: JsonSchema = {},
): JsonSchema => ({ type: 'object', properties, required, ...extra });
export const text = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });

/** The challenge object a sign-in answers for an account with two-factor (or one that must enroll). */
export const CHALLENGE_ANSWER: JsonSchema = object(
  {
    mfa_required: { const: true },
    challenge: text({ description: 'Pass it to /mfa/verify with a code; it dies after 5 wrong codes' }),
    expires_in: { type: 'integer', description: 'Seconds the challenge lives' },
    setup: {
      const: true,
      description: 'Present when the account must enroll first: /mfa/challenge answers its secret',
    },
  },
  ['mfa_required', 'challenge', 'expires_in'],
);

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

  // Security schemes: what each route's `security` names, carried with it for the document's components.
  const schemes: Record<string, Record<string, unknown>> = {};
  if (core.session) {
    schemes.accountSession = {
      type: 'apiKey',
      in: 'cookie',
      name: core.session.manager.cookieName,
      description: 'The HttpOnly session cookie /login sets',
    };
    schemes.accountCsrf = {
      type: 'apiKey',
      in: 'header',
      name: 'X-CSRF-Token',
      description:
        'The csrf_token of /login (also in the readable CSRF cookie): needed with the session cookie on POST, PUT, PATCH and DELETE',
    };
  }
  if (core.bearer) {
    schemes.accountBearer = {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The access_token of /token or /refresh',
    };
    if (core.bearer.refresh === 'cookie')
      schemes.accountRefreshCookie = {
        type: 'apiKey',
        in: 'cookie',
        name: core.bearer.refreshCookie,
        description: 'The HttpOnly refresh cookie /token sets',
      };
  }
  if (core.apiKeys) {
    const format = `${core.apiKeys.prefix}_<lookup>_<secret>`;
    schemes.accountApiKey = {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: `An API key of POST /api-keys (${format}): its owner's permissions narrowed to its scopes`,
    };
    schemes.accountApiKeyBearer = {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: format,
      description: 'An API key sent as a bearer token instead of in X-API-Key',
    };
  }
  const secured = (requirements: Record<string, string[]>[]): RouteDocPart => {
    const names = new Set(requirements.flatMap((r) => Object.keys(r)));
    return {
      security: requirements,
      securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => names.has(name))),
    };
  };
  const session = (unsafe: boolean) => ({
    accountSession: [],
    ...(unsafe && core.session?.csrf ? { accountCsrf: [] } : {}),
  });
  const sessionOnly = (unsafe: boolean) => secured([session(unsafe)]);
  const anyCredential = (unsafe: boolean) =>
    secured([...(core.session ? [session(unsafe)] : []), ...(core.bearer ? [{ accountBearer: [] }] : [])]);
  // What a route that also takes an API key accepts: any credential, or a key in either header.
  const orApiKey = (unsafe: boolean) => {
    const part = anyCredential(unsafe);
    return core.apiKeys ? secured([...part.security!, { accountApiKey: [] }, { accountApiKeyBearer: [] }]) : part;
  };

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

/** Adds each route's part of the docs (by its operation) to the doc `route()` started. */
export function withAccountDocs(routes: RouteDescriptor[], docs: Record<string, RouteDocPart>): RouteDescriptor[] {
  return routes.map((r) => ({ ...r, doc: { ...r.doc!, ...docs[r.operation.replace(/^account_/, '')] } }));
}
