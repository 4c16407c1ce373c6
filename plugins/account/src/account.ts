import {
  ConfigurationError,
  type Dependency,
  type MigrationSet,
  type Plugin,
  type Principal,
  type RouteDescriptor,
} from '@crudsmith/core';
import { sessionTableMigration, type SessionManager } from '@crudsmith/core/session';
import { AccountCore } from './account-core';
import { currentUserFactory, principalDependency, type CurrentUserOptions } from './dependencies';
import { loginFailureMigration, loginLockoutsMigration } from '@crudsmith/core';
import type { AccountOptions, AccountUser } from './options';
import { refreshTokenMigration } from './refresh-tokens';
import { createUser, type NewUser } from './registration';
import { bearerRoutes } from './routes/bearer-routes';
import { commonRoutes } from './routes/common-routes';
import { jsonBodiesOnly } from './json-only';
import { accountDocs, withAccountDocs, type RouteDocPart } from './openapi';
import { sessionRoutes } from './routes/session-routes';
import { recoveryPart } from './recovery/recovery-part';
import { oauthPart } from './oauth/oauth-part';
import { createSudo, type Sudo } from './sudo';
import { freshSignInGate } from './fresh-sign-in';
import { mfaDocs } from './mfa/docs';
import { mfaRoutes } from './mfa/routes';
import { TwoFactor } from './mfa/two-factor';
import { signInStep } from './mfa/sign-in';
import { accessMigration } from './access/access-tables';
import { roleRoutes } from './access/role-routes';
import type { Roles } from './access/roles';
import { operatorApiKeys, type OperatorApiKeys } from './api-keys/operator-api-keys';
import { apiKeyMigration, apiKeyTierMigration } from './api-keys/api-keys';
import { apiKeyRoutes } from './api-keys/api-key-routes';
import { accessDocs } from './access/access-docs';

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
  /** Lifts the sign-in lockout of the user with this id (the admin's Unlock button on the users view). */
  unlock(userId: string | number): Promise<void>;
  /** Whether the user with this id is locked out of sign-in now (the admin shows its Unlock button only then). */
  isLocked(userId: string | number): Promise<boolean>;
  /** A dependency that answers 403 unless the caller elevated with `sudo.elevate` recently. */
  requireSudo(): Dependency<User>;
  /** A dependency that answers 403 unless the caller signed in within `freshSignInSeconds`. */
  requireFreshSignIn(): Dependency<User>;
  /** The plugin's tables (sessions, refresh tokens, sign-in failures), to list at bootstrap. */
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
  /** Ends every session and refresh token of a user, and kills their access tokens. */
  signOutEverywhere(userId: string | number): Promise<void>;
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
  const core = new AccountCore(options);
  if (!core.sessions && !core.bearer)
    throw new ConfigurationError('account: enable the session transport, the bearer transport, or both');
  const prefix = (options.path ?? '').replace(/\/+$/, '');
  const at = (routes: RouteDescriptor[]) => routes.map((r) => ({ ...r, path: `${prefix}${r.path}` }));
  const registerFields = options.registerFields ?? (core.users.info.columns.has('name') ? ['name'] : []);

  const twoFactor = options.mfa ? new TwoFactor(core, options.mfa === true ? {} : options.mfa) : null;
  // Every sign-in ends here: with two-factor, at its challenge.
  const finishSignIn = signInStep(core, twoFactor);
  const baseDocs = accountDocs(core, registerFields);
  // With two-factor: its routes' docs, and /login and /token whose answer may be a challenge.
  const docs = twoFactor ? { ...baseDocs, ...mfaDocs(baseDocs) } : baseDocs;
  // The e-mail (or phone) factor: its routes when `recovery` is set, its token table always.
  const recovery = recoveryPart(core, core.tables.tokens, baseDocs.change_password);
  // OpenID Connect sign-in: its routes with `oauthProviders` (session transport only), its tables always.
  const oauth = oauthPart(core, finishSignIn, prefix);
  const mfa = twoFactor ? jsonBodiesOnly(withAccountDocs(mfaRoutes(core, twoFactor), docs)) : [];
  const access = [
    ...(options.roleRoutes ? roleRoutes(core) : []),
    ...(core.apiKeys ? apiKeyRoutes(core, core.apiKeys) : []),
  ];
  const common = [
    ...withAccountDocs(commonRoutes(core, registerFields), docs),
    ...mfa,
    ...recovery.routes,
    ...jsonBodiesOnly(
      withAccountDocs(access, accessDocs(securityOf(baseDocs.me), securityOf(baseDocs.change_password))),
    ),
  ];
  const session = core.sessions
    ? [...withAccountDocs(sessionRoutes(core, finishSignIn, options.trustedOrigins ?? []), docs), ...oauth.routes]
    : [];
  // A bearer-only app in cookie mode gets its own /logout; with sessions, /logout is the session's.
  const bearer = core.bearer ? withAccountDocs(bearerRoutes(core, finishSignIn, { logout: !core.sessions }), docs) : [];
  const { tables } = core;
  const { sudo, requireSudo } = createSudo(core, twoFactor);
  const router = at([...common, ...session, ...bearer]);

  return {
    name: 'account',
    routes: options.mount === false ? [] : router,
    router,
    sessionRouter: core.sessions ? at([...common, ...session]) : [],
    bearerRouter: core.bearer ? at([...common, ...bearer]) : [],
    sessionManager: core.sessions,
    // The rows are the app's users, so they are typed as the app says (see AccountPlugin).
    currentUser: currentUserFactory(core) as AccountPlugin<User>['currentUser'],
    principal: principalDependency(core),
    unlock: (userId) => core.unlock(userId),
    isLocked: (userId) => core.isLocked(userId),
    sudo,
    requireSudo: requireSudo as () => Dependency<User>,
    requireFreshSignIn: freshSignInGate(core) as () => Dependency<User>,
    migrations: {
      name: 'account',
      migrations: {
        '0001_sessions': sessionTableMigration(tables.sessions),
        '0002_refresh_tokens': refreshTokenMigration(tables.refreshTokens),
        '0003_login_failures': loginFailureMigration(tables.loginFailures),
        '0004_login_lockouts': loginLockoutsMigration(tables.loginFailures),
        ...twoFactor?.migrations(),
        ...recovery.migrations,
        ...oauth.migrations,
        '0012_access': accessMigration(tables),
        '0013_api_keys': apiKeyMigration(tables.apiKeys),
        '0014_api_key_tiers': apiKeyTierMigration(tables.apiKeys),
      },
    },
    createUser: (input, flags, options) => createUser(core, input, flags, options?.client) as Promise<User>,
    async signOutEverywhere(userId) {
      await core.signOutEverywhere(userId);
      await core.users.bumpTokenVersion(userId);
    },
    roles: core.roles,
    apiKeys: core.apiKeys ? operatorApiKeys(core, core.apiKeys) : null,
    hashPassword: (password) => core.passwords.hash(password),
    settled: () => recovery.settled(),
    async init() {
      await core.ready();
      await core.sessions?.prune();
    },
    async close() {
      await recovery.close();
      if (core.ownsPool) await core.passwords.pool.close();
    },
  };
}
