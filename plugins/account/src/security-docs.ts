import type { AccountCore } from './account-core';
import type { RouteDocPart } from './openapi';

// The security of the account routes' docs: the schemes the transports the account is
// built with offer, and each route's requirements naming only those.

/** A route's `security` (with the schemes it names), by the credentials it accepts. */
export interface AccountSecurity {
  /** The requirements as given, with the schemes they name. */
  secured(requirements: Record<string, string[]>[]): RouteDocPart;
  /** The session cookie alone (and the CSRF header on an unsafe verb). */
  sessionOnly(unsafe: boolean): RouteDocPart;
  /** The session cookie or a bearer token, whichever transports there are. */
  anyCredential(unsafe: boolean): RouteDocPart;
  /** Any credential, or an API key in either header. */
  orApiKey(unsafe: boolean): RouteDocPart;
}

/** The security schemes of the account's transports, and the requirements built from them. */
export function accountSecurity(core: AccountCore): AccountSecurity {
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
  return { secured, sessionOnly, anyCredential, orApiKey };
}
