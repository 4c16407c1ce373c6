import {
  ForbiddenError,
  UnauthorizedError,
  type Dependency,
  type NeutralRequest,
  type Principal,
} from '@crudsmith/core';
import type { AccountCore, Credential } from './account-core';
import type { AccountUser } from './options';

/** What `currentUser` demands of the caller. */
export interface CurrentUserOptions {
  /** Answer null for an anonymous caller instead of 401. */
  optional?: boolean;
  /** Only superusers (403 for others). */
  superuser?: boolean;
  /** Only users whose verified flag is set (403 for others). */
  verified?: boolean;
  /** Every one of these scopes (403 otherwise). */
  scopes?: string[];
}

const INVALID_TOKEN = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };

/**
 * The caller's credential with the session path's CSRF rule applied: a session request
 * with an unsafe verb and a missing or wrong `X-CSRF-Token` is 403. An API key is 403
 * unless `apiKey` is set: the account's own routes (passwords, two-factor, sudo, keys)
 * need the person, not a key a script holds.
 */
export function credentialDependency(
  core: AccountCore,
  options: { optional: boolean; apiKey?: boolean },
): Dependency<Credential | null> {
  return async (req) => {
    const { credential, invalidToken } = await req.resolve(core.credential);
    if (invalidToken) throw new UnauthorizedError('Invalid or expired token', { headers: INVALID_TOKEN });
    if (!credential) {
      if (options.optional) return null;
      throw new UnauthorizedError('Not authenticated', {
        headers: { 'WWW-Authenticate': core.bearer ? 'Bearer' : 'Session' },
      });
    }
    if (!credential.csrfOk) throw new ForbiddenError('CSRF token missing or invalid');
    if (credential.transport === 'api-key' && !options.apiKey)
      throw new ForbiddenError('This route does not accept an API key');
    return credential;
  };
}

/** Builds `auth.currentUser(options)`: one dependency per distinct options, so each resolves once per request. */
export function currentUserFactory(
  core: AccountCore,
): (options?: CurrentUserOptions) => Dependency<AccountUser | null> {
  const made = new Map<string, Dependency<AccountUser | null>>();
  const required = credentialDependency(core, { optional: false, apiKey: true });
  const optional = credentialDependency(core, { optional: true, apiKey: true });
  return (options = {}) => {
    const key = JSON.stringify([
      options.optional ?? false,
      options.superuser ?? false,
      options.verified ?? false,
      [...(options.scopes ?? [])].sort(),
    ]);
    let dependency = made.get(key);
    if (!dependency) {
      dependency = async (req) => {
        const credential = await req.resolve(options.optional ? optional : required);
        if (!credential) return null;
        assertAllowed(core, credential, options);
        return core.publicUser(credential.row);
      };
      made.set(key, dependency);
    }
    return dependency;
  };
}

function assertAllowed(core: AccountCore, credential: Credential, options: CurrentUserOptions): void {
  const { users } = core;
  // A superuser's API key is narrowed to its scopes like any other: it is no superuser.
  if (options.superuser && (credential.apiKey || !users.flag(credential.row, users.columns.isSuperuser)))
    throw new ForbiddenError('Superuser required');
  if (options.verified && !users.flag(credential.row, users.columns.isVerified))
    throw new ForbiddenError('Verified account required');
  const missing = (options.scopes ?? []).filter((s) => !credential.scopes.includes(s));
  if (missing.length > 0) throw new ForbiddenError(`Missing scope: ${missing.join(' ')}`);
}

/**
 * The principal for `bootstrap({ principal })`: who calls, for plugins such as rate
 * limiting. It never throws; a session request that fails the CSRF check counts as
 * anonymous, so nothing can act on a forged request's behalf.
 */
export function principalDependency(core: AccountCore): Dependency<Principal | null> {
  return async (req: NeutralRequest) => {
    const { credential } = await req.resolve(core.credential);
    if (!credential || !credential.csrfOk) return null;
    const { users } = core;
    const tier = users.columns.tierId ? credential.row[users.columns.tierId] : null;
    const id = users.idOf(credential.row);
    const access = await core.roles.rolesOf(id);
    const key = credential.apiKey;
    const ownerTier = tier === null || tier === undefined ? null : Number(tier);
    return {
      id,
      // A key with its own tier is limited by it, and every key is counted on its own.
      tierId: key?.tierId ?? ownerTier,
      ...(key ? { rateLimitKey: `api-key:${key.id}` } : {}),
      isSuperuser: !key && users.flag(credential.row, users.columns.isSuperuser),
      scopes: credential.scopes,
      roles: access.roles,
      // A key holds what its owner holds, narrowed to its scopes (a superuser's key: exactly its scopes).
      permissions: key
        ? users.flag(credential.row, users.columns.isSuperuser)
          ? key.scopes
          : access.permissions.filter((p) => key.scopes.includes(p))
        : access.permissions,
      transport: credential.transport,
    };
  };
}
