import type { Knex } from 'knex';
import {
  ConfigurationError,
  RateLimitError,
  UnauthorizedError,
  type CookieToSet,
  type Dependency,
  type NeutralRequest,
} from '@crudsmith/core';
import { type Session, type SessionManager, Lockout, HashPool, hashSecret } from '@crudsmith/core/auth';
import type { AccountOptions, AccountUser } from './options';
import { Passwords } from './password';
import { Roles } from './roles';
import { ApiKeys } from './api-key-store';
import { apiKeyCredential, presentedKey } from './api-key-credential';
import type { Credential, CredentialResult } from './credential';
import { UserTable, foldIdentifier, normalizeIdentifier, resolveColumns } from './users';

type Row = Record<string, unknown>;

export type { Credential, CredentialResult } from './credential';

export const LOGIN_FAILED = 'Incorrect username or password';

const DEFAULT_TABLES = {
  sessions: 'account_sessions',
  refreshTokens: 'account_refresh_tokens',
  loginFailures: 'account_login_failures',
  tokens: 'account_tokens',
  oauthFlows: 'account_oauth_flows',
  identities: 'account_identities',
  roles: 'account_roles',
  rolePermissions: 'account_role_permissions',
  userRoles: 'account_user_roles',
  accessVersion: 'account_access_version',
  apiKeys: 'account_api_keys',
};

const API_KEY_PREFIX = /^[a-z][a-z0-9]{1,15}$/;

/** Resolved bearer settings. */
export interface BearerSettings {
  accessSeconds: number;
  refresh: 'body' | 'cookie' | 'none';
  refreshSeconds: number;
  refreshCookie: string;
}

/** What the session transport (`session/`) offers the rest of the plugin. */
export interface SessionSide {
  readonly manager: SessionManager;
  /** Whether unsafe verbs need the CSRF header. */
  readonly csrf: boolean;
  readonly managementRoutes: boolean;
  /** The session credential alone, whatever the Authorization header says (session routes). */
  readonly credential: Dependency<Credential | null>;
  /** Starts a session for a signed-in user, replacing the one the request came with. */
  start(req: NeutralRequest, row: Row): Promise<{ cookies: CookieToSet[]; csrfToken: string }>;
  csrfCookieFor(token: string, session: Session): CookieToSet;
  /** Cookies that sign the browser out: session, CSRF and (when used) the refresh cookie. */
  signOutCookies(): CookieToSet[];
}

/** What the bearer transport (`bearer/`) offers the rest of the plugin: its settings, issuing and reading tokens. */
export interface BearerSide extends BearerSettings {
  /** Signs an access token for a user. */
  accessToken(row: Row, grant: { scope: string; authTime: number; sudoUntil?: number }): Promise<string>;
  /** Issues an access token, and a new refresh-token family unless refresh is off. */
  issueTokens(
    row: Row,
    grant: { scope: string; authTime: number },
  ): Promise<{ json: Record<string, unknown>; cookies: CookieToSet[] }>;
  /** The credential of the request's Authorization header. */
  read(req: NeutralRequest): Promise<CredentialResult>;
  /** The cookie clearing the refresh cookie (refresh mode `cookie`), else none. */
  signOutCookies(): CookieToSet[];
  /** Revokes the refresh-token family named by the request's refresh cookie, if any. */
  revokeRefreshCookie(cookies: Record<string, string>): Promise<void>;
}

/**
 * The transports the core is built with, each made from the core it serves (after its
 * shared fields). Refresh tokens end at sign-out everywhere whether or not the bearer
 * transport is on now, so a token issued while it was on stays dead.
 */
export interface AccountTransports<B extends BearerSide = BearerSide> {
  session: ((core: AccountCore) => SessionSide) | null;
  bearer: ((core: AccountCore) => B) | null;
  revokeRefreshTokens: (core: AccountCore) => (userId: string, now: number, db?: Knex) => Promise<void>;
}

/**
 * What every part of the account plugin shares: the user table, passwords, lockout, the
 * secret, the clock, roles and API keys, and the one credential check over the transports.
 * `B` is the bearer transport's own class where it is known (`account()`, `bearer/`), so the
 * bearer routes reach its refresh tokens without the core naming them.
 */
export class AccountCore<B extends BearerSide = BearerSide> {
  readonly users: UserTable;
  readonly passwords: Passwords;
  readonly lockout: Lockout;
  /** Whether the bcrypt pool is the plugin's own (ended with it) rather than one the app shares. */
  readonly ownsPool: boolean;
  /** The session transport, or null when it is off. */
  readonly session: SessionSide | null;
  /** The bearer transport, or null when it is off. */
  readonly bearer: B | null;
  readonly secure: boolean;
  readonly freshSignInMs: number;
  readonly sudoMs: number;
  readonly now: () => number;
  readonly credential: Dependency<CredentialResult>;
  /** Roles, permissions and who holds them. */
  readonly roles: Roles;
  /** Scoped API keys, or null when `apiKeys` is off (then a key authenticates nothing). */
  readonly apiKeys: ApiKeys | null;
  private readonly revokeRefreshTokens: (userId: string, now: number, db?: Knex) => Promise<void>;
  /** The app's secret, resolved once: keys for other purposes (sealed TOTP secrets) derive from it. */
  readonly secret: () => Promise<string>;
  /** The plugin's table names: the options' `tables` over the defaults. */
  readonly tables: Required<NonNullable<AccountOptions['tables']>>;

  constructor(
    readonly options: AccountOptions,
    transports: AccountTransports<B>,
  ) {
    const tables = (this.tables = { ...DEFAULT_TABLES, ...options.tables });
    this.now = options.now ?? Date.now;
    this.secure = options.secureCookies ?? false;
    this.users = new UserTable(options.knex, options.userModel, resolveColumns(options.userModel, options.columns));
    this.ownsPool = !options.hashPool;
    this.passwords = new Passwords(options.password, options.hashPool ?? new HashPool(options.hashing));
    this.lockout = new Lockout(options.knex, tables.loginFailures, options.lockout);
    this.freshSignInMs = (options.freshSignInSeconds ?? 600) * 1000;
    this.sudoMs = (options.sudoSeconds ?? 300) * 1000;
    let secret: Promise<string> | undefined;
    this.secret = () => (secret ??= resolveSecret(options.secretKey));
    this.credential = (req) => this.readCredential(req);
    this.roles = new Roles(options.knex, tables, this.now);
    const keys = options.apiKeys === true ? {} : options.apiKeys || null;
    const prefix = keys?.prefix ?? 'csk';
    if (keys && !API_KEY_PREFIX.test(prefix))
      throw new ConfigurationError('account: apiKeys.prefix must be 2 to 16 lower-case letters or digits');
    this.apiKeys = keys ? new ApiKeys(options.knex, tables.apiKeys, prefix) : null;
    // Last: a transport reads the fields above.
    this.session = transports.session?.(this) ?? null;
    this.bearer = transports.bearer?.(this) ?? null;
    this.revokeRefreshTokens = transports.revokeRefreshTokens(this);
  }

  /** The app's secret, resolved once (startup calls this so a bad secret fails early). */
  async ready(): Promise<void> {
    await this.secret();
  }

  scopesOf(row: Row): string[] {
    return this.options.scopesOf?.(this.users.publicView(row)) ?? [];
  }

  publicUser(row: Row): AccountUser {
    return this.users.publicView(row);
  }

  /**
   * Checks a sign-in (shared by /login, /token and sudo): lockout first, then the
   * password, with the same work and the same 401 whether or not the account exists.
   * `row` is the account when the caller already knows it (change-password, sudo);
   * `client` the caller's address, which bounds its concurrent hashing (429 beyond).
   */
  async signIn(identifier: string, password: string, options: { row?: Row; client?: string } = {}): Promise<Row> {
    const now = this.now();
    const normalized = normalizeIdentifier(identifier).trim();
    const row = options.row ?? (normalized ? await this.users.findForLogin(normalized) : null);
    const key = row ? `user:${this.users.idOf(row)}` : `name:${hashSecret(foldIdentifier(normalized)).slice(0, 40)}`;
    // A hashing slot first: a request the pool refuses (429/503) is not counted by the lockout.
    return this.passwords.bounded(options.client, async () => {
      // The attempt is counted before the password is checked: concurrent guesses beyond
      // what the lockout allows are refused here, without a bcrypt.
      const attempt = await this.lockout.attempt(key, now);
      if (!attempt.allowed)
        throw new RateLimitError('Too many failed sign-in attempts; try again later', {
          retryAfter: attempt.retryAfter,
        });
      const ok = await this.passwords.verify(
        password,
        row ? (row[this.users.columns.passwordHash] as string | null) : null,
      );
      if (!row || !ok) {
        await this.lockout.fail(key, this.now());
        throw new UnauthorizedError(LOGIN_FAILED);
      }
      await this.lockout.succeed(key);
      return row;
    });
  }

  /**
   * Lifts a user's sign-in lockout and forgets its failures (the key `signIn` counts a known
   * account under); through `db` when given, a transaction it commits with.
   */
  async unlock(userId: string | number, db?: Knex): Promise<void> {
    await this.lockout.succeed(`user:${userId}`, db);
  }

  /** Whether a user's sign-in is locked out now (what `unlock` would lift). */
  async isLocked(userId: string | number): Promise<boolean> {
    const key = `user:${userId}`;
    return (await this.lockout.lockedKeys([key], this.now())).has(key);
  }

  /**
   * Ends every session and refresh token of a user (soft delete, hard delete, compromise).
   * With `db` (a transaction) the database's part commits with it; the sessions go last, as
   * a store outside the database (Redis) ends them at once.
   */
  async signOutEverywhere(userId: string | number, options: { keep?: Session | null; db?: Knex } = {}): Promise<void> {
    await this.revokeRefreshTokens(String(userId), this.now(), options.db);
    await this.session?.manager.revokeAll(userId, { keep: options.keep, db: options.db });
  }

  /** Ends every refresh token of a user, and no session (`/logout-all` ends those itself). */
  async revokeRefreshTokensOf(userId: string | number): Promise<void> {
    await this.revokeRefreshTokens(String(userId), this.now());
  }

  requireSession(): SessionSide {
    if (!this.session) throw new Error('account: the session transport is not enabled');
    return this.session;
  }

  requireBearer(): B {
    if (!this.bearer) throw new Error('account: the bearer transport is not enabled');
    return this.bearer;
  }

  // Authorization header first (tokens travel there only, never in the query), then the
  // session cookie. The user row is loaded fresh on every request, so a change to a user applies from their next request.
  private async readCredential(req: NeutralRequest): Promise<CredentialResult> {
    const key = this.apiKeys ? presentedKey(this.apiKeys, req) : null;
    if (key !== null) return apiKeyCredential(this, this.apiKeys!, key, req.clientAddress);
    if (req.headers.authorization !== undefined && this.bearer) return this.bearer.read(req);
    return { credential: this.session ? await req.resolve(this.session.credential) : null, invalidToken: false };
  }
}

async function resolveSecret(secret: AccountOptions['secretKey']): Promise<string> {
  const value = typeof secret === 'function' ? await secret() : secret;
  if (typeof value !== 'string' || value.length < 32) {
    throw new Error('account: secretKey must be a string of at least 32 characters');
  }
  return value;
}
