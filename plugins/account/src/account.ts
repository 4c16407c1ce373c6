import type { Knex } from 'knex';
import {
  ConfigurationError,
  type Dependency,
  type Plugin,
  type Principal,
  type RouteDescriptor,
  type MigrationSet,
} from '@crudsmith/core';
import { loginFailureMigration, loginLockoutsMigration, type SessionManager } from '@crudsmith/core/auth';
import { AccountCore } from './account-core';
import { commonRoutes } from './common-routes';
import { currentUserFactory, principalDependency, type CurrentUserOptions } from './dependencies';
import { freshSignInGate } from './fresh-sign-in';
import { accountDocs } from './account-docs';
import { withAccountDocs, type RouteDocPart } from './openapi';
import type { AccountOptions, AccountUser } from './options';
import { mergeParts, type AccountPart } from './part';
import { createUser, type NewUser } from './registration';
import type { Roles } from './roles';
import { signInStep } from './sign-in';
import { createSudo, type Sudo } from './sudo';
import { accessDocs } from './access/access-docs';
import { accessPart } from './access/access-part';
import { apiKeysPart } from './api-keys/api-keys-part';
import type { OperatorApiKeys } from './api-keys/operator-api-keys';
import { bearerPart } from './bearer/bearer-part';
import { bearerTransport } from './bearer/bearer-transport';
import { mfaPart } from './mfa/mfa-part';
import { oauthPart } from './oauth/oauth-part';
import { recoveryPart } from './recovery/recovery-part';
import { sessionPart } from './session/session-part';
import { sessionTransport } from './session/session-transport';

/**
 * The account plugin: a Plugin for bootstrap, plus the routers and dependencies an app uses.
 * `User` is the app's own type of a user row (every column but the password hash), as it
 * declares it: `account<AppUser>({ ... })`. The plugin hands out the row it read and does not
 * check it against the type.
 */
export interface AccountPlugin<User extends object = AccountUser> extends Plugin {
  /** Every route configured: the always-mounted ones and each enabled transport's. */
  router: RouteDescriptor[];
  /** The always-mounted routes and the session transport's (empty when it is off). */
  sessionRouter: RouteDescriptor[];
  /** The always-mounted routes and the bearer transport's (empty when it is off). */
  bearerRouter: RouteDescriptor[];
  /** A dependency answering the signed-in user (password hash removed), or 401/403: never null. */
  currentUser(options?: CurrentUserOptions & { optional?: false }): Dependency<User>;
  /** With `optional: true`, null for an anonymous caller instead of 401. */
  currentUser(options: CurrentUserOptions & { optional: true }): Dependency<User | null>;
  currentUser(options: CurrentUserOptions): Dependency<User | null>;
  /** The session transport's SessionManager (null when it is off): what an adapter's session middleware carries (koa-session on Koa). */
  sessionManager: SessionManager | null;
  /** The caller as a core Principal, for `bootstrap({ principal })`. */
  principal: Dependency<Principal | null>;
  sudo: Sudo;
  /**
   * Lifts the sign-in lockout of the user with this id (the admin's Unlock button on the
   * users view); in `trx` when given, so it commits with the caller's other writes.
   */
  unlock(userId: string | number, trx?: Knex.Transaction): Promise<void>;
  /** Whether the user with this id is locked out of sign-in now (the admin shows its Unlock button only then). */
  isLocked(userId: string | number): Promise<boolean>;
  /** A dependency that answers 403 unless the caller elevated with `sudo.elevate` recently. */
  requireSudo(): Dependency<User>;
  /** A dependency that answers 403 unless the caller signed in within `freshSignInSeconds`. */
  requireFreshSignIn(): Dependency<User>;
  /**
   * The plugin's tables (sessions, tokens, sign-in failures, roles, API keys, as `tables` names
   * them): bootstrap runs the set itself, before the app's own, which is all an app lists.
   */
  migrations: MigrationSet;
  /**
   * Creates a user as /register does (policy, lengths, duplicates); flags only from here.
   * Pass `client`, the caller's address (`req.clientAddress`), when a request asks for it:
   * its concurrent hashing is then bounded per client as at /register (429 beyond), not only overall.
   */
  createUser(
    input: NewUser,
    flags?: { superuser?: boolean; verified?: boolean },
    options?: { client?: string },
  ): Promise<User>;
  /**
   * Ends every session and refresh token of a user, and kills their access tokens. With
   * `trx`, what the database holds ends only if it commits (sessions in Redis end at once,
   * last, so a failing write before them leaves them be).
   */
  signOutEverywhere(userId: string | number, trx?: Knex.Transaction): Promise<void>;
  /** Hashes a password as the plugin does (bcrypt, NFKC, long ones pre-hashed). */
  hashPassword(password: string): Promise<string>;
  /**
   * Roles, permissions and assignments: `createRole`, `grant`, `revoke`, `assign`, `unassign`,
   * `setRoles`, `list` and `rolesOf(userId)` (cached; a change reaches every process within a second).
   */
  roles: Roles;
  /**
   * Users' API keys as an operator's tool sees them (the admin's `apiKeys`): a user's live
   * keys, newest first, and revoking one (the tool records that itself; `onApiKeyEvent` is
   * for the user's own routes). Null when `apiKeys` is off.
   */
  apiKeys: OperatorApiKeys | null;
  /** Resolves once every mail or text message the recovery routes started has been handed over or has failed (tests, shutdown). */
  settled(): Promise<void>;
}

// The security requirement of a documented route, to give routes of the same kind, less its
// API key alternatives: the role and key routes need the person, never a key.
function securityOf(doc: RouteDocPart | undefined): RouteDocPart {
  const inPerson = doc?.security?.filter((r) => !Object.keys(r).some((name) => name.startsWith('accountApiKey')));
  return { security: inPerson, securitySchemes: doc?.securitySchemes };
}

/**
 * The account plugin (`@crudsmith/account`): registration, passwords, server-side
 * sessions with CSRF, and bearer tokens with rotating refresh tokens, over the app's own
 * user model.
 *
 * @example
 * const auth = account({ knex, userModel: User, secretKey: process.env.SECRET_KEY!, path: '/auth',
 *   session: { managementRoutes: true }, bearer: { refresh: 'body' } });
 * const app = bootstrap({ plugins: [auth], principal: auth.principal, migrations: [appMigrations] });
 * // a route only a superuser may call:
 * const deps = [auth.currentUser({ superuser: true })];
 */
export function account<User extends object = AccountUser>(options: AccountOptions): AccountPlugin<User> {
  const core = new AccountCore(options, {
    session: sessionTransport(options.session),
    ...bearerTransport(options.bearer),
  });
  if (!core.session && !core.bearer)
    throw new ConfigurationError('account: enable the session transport, the bearer transport, or both');
  const prefix = (options.path ?? '').replace(/\/+$/, '');
  const at = (routes: RouteDescriptor[]) => routes.map((r) => ({ ...r, path: `${prefix}${r.path}` }));
  const registerFields = options.registerFields ?? (core.users.info.columns.has('name') ? ['name'] : []);

  const baseDocs = accountDocs(core, registerFields);
  // Two-factor first: its docs of /login and /token (whose answer may be a challenge) are laid over the base docs.
  const mfa = mfaPart(core, options.mfa, baseDocs);
  const docs = { ...baseDocs, ...mfa.docs };
  // Every sign-in ends here: with two-factor, at its challenge.
  const finishSignIn = signInStep(core, mfa.secondFactor);
  const shared: AccountPart = {
    routes: withAccountDocs(commonRoutes(core, registerFields), docs),
    migrations: {
      '0003_login_failures': loginFailureMigration(core.tables.loginFailures),
      '0004_login_lockouts': loginLockoutsMigration(core.tables.loginFailures),
    },
  };
  const access = accessDocs(securityOf(baseDocs.me), securityOf(baseDocs.change_password));
  const parts = {
    session: sessionPart(core, finishSignIn, docs),
    bearer: bearerPart(core, finishSignIn, docs),
    shared,
    mfa,
    // The e-mail (or phone) factor: its routes when `recovery` is set, its token table always.
    recovery: recoveryPart(core, core.tables.tokens, baseDocs.change_password),
    // OpenID Connect sign-in: its routes with `oauthProviders` (session transport only), its tables always.
    oauth: oauthPart(core, finishSignIn, prefix),
    access: accessPart(core, access),
    apiKeys: apiKeysPart(core, access),
  };
  // Mounted with any transport, then each transport's own; every part's tables, in migration order.
  const common = mergeParts([parts.shared, parts.mfa, parts.recovery, parts.access, parts.apiKeys]).routes;
  const session = mergeParts([parts.session, parts.oauth]).routes;
  const bearer = parts.bearer.routes;
  const all = mergeParts(Object.values(parts));
  const { sudo, requireSudo } = createSudo(core, mfa.secondFactor);
  const router = at([...common, ...session, ...bearer]);

  return {
    name: 'account',
    routes: options.mount === false ? [] : router,
    router,
    sessionRouter: core.session ? at([...common, ...session]) : [],
    bearerRouter: core.bearer ? at([...common, ...bearer]) : [],
    sessionManager: core.session?.manager ?? null,
    // The rows are the app's users, so they are typed as the app says (see AccountPlugin).
    currentUser: currentUserFactory(core) as AccountPlugin<User>['currentUser'],
    principal: principalDependency(core),
    unlock: (userId, trx) => core.unlock(userId, trx),
    isLocked: (userId) => core.isLocked(userId),
    sudo,
    requireSudo: requireSudo as () => Dependency<User>,
    requireFreshSignIn: freshSignInGate(core) as () => Dependency<User>,
    migrations: { name: 'account', migrations: all.migrations },
    createUser: (input, flags, options) => createUser(core, input, flags, options?.client) as Promise<User>,
    async signOutEverywhere(userId, trx) {
      await core.users.bumpTokenVersion(userId, trx);
      await core.signOutEverywhere(userId, { db: trx });
    },
    roles: core.roles,
    apiKeys: parts.apiKeys.operator,
    hashPassword: (password) => core.passwords.hash(password),
    settled: () => all.settled(),
    async init() {
      await core.ready();
      await core.session?.manager.prune();
    },
    async close() {
      await all.close();
      if (core.ownsPool) await core.passwords.pool.close();
    },
  };
}
