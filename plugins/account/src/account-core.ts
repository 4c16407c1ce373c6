import {
  ConfigurationError,
  RateLimitError,
  UnauthorizedError,
  randomToken,
  safeEqual,
  type CookieToSet,
  type Dependency,
  type NeutralRequest,
} from '@crudsmith/core';
import { KnexSessionStore, SessionManager, type Session } from '@crudsmith/core/session';
import { AccessTokens, deriveKey, type AccessClaims } from './access-token';
import { clearCookie, cookie } from './cookies';
import { Lockout } from '@crudsmith/core';
import type { AccountOptions, AccountUser, BearerTransportOptions } from './options';
import { HashPool } from '@crudsmith/core';
import { Passwords } from './password';
import { RefreshTokens } from './refresh-tokens';
import { hashSecret } from '@crudsmith/core';
import { Roles } from './access/roles';
import { ApiKeys, type ApiKey } from './api-keys/api-keys';
import { apiKeyCredential, presentedKey } from './api-keys/api-key-credential';
import { UserTable, foldIdentifier, normalizeIdentifier, resolveColumns } from './users';

type Row = Record<string, unknown>;

/** Who is calling and how, once the credential was checked. */
export interface Credential {
  /** The full user row (password hash included): internal, never answered. */
  row: Row;
  transport: 'session' | 'bearer' | 'api-key';
  scopes: string[];
  /** The key the caller authenticated with (transport `api-key`): its scopes narrow the owner's permissions. */
  apiKey?: ApiKey;
  session: Session | null;
  claims: AccessClaims | null;
  /** When the user last entered a password, ms. */
  authTime: number;
  /** Whether the request may use the credential for an unsafe verb (CSRF passed or not needed). */
  csrfOk: boolean;
}

/** The credential, or why there is none that counts. */
export interface CredentialResult {
  credential: Credential | null;
  /** A bearer token was presented and is not valid: 401 even where sign-in is optional. */
  invalidToken: boolean;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const CSRF_HEADER = 'x-csrf-token';
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

/**
 * Everything the account routes and dependencies share: the user table, passwords,
 * lockout, sessions, tokens, cookies and the one credential check.
 */
export class AccountCore {
  readonly users: UserTable;
  readonly passwords: Passwords;
  readonly lockout: Lockout;
  /** Whether the bcrypt pool is the plugin's own (ended with it) rather than one the app shares. */
  readonly ownsPool: boolean;
  readonly sessions: SessionManager | null;
  readonly csrf: boolean;
  readonly csrfCookie: string;
  readonly managementRoutes: boolean;
  readonly bearer: BearerSettings | null;
  readonly refreshTokens: RefreshTokens;
  readonly accessTokens: AccessTokens;
  readonly secure: boolean;
  readonly freshSignInMs: number;
  readonly sudoMs: number;
  readonly now: () => number;
  readonly credential: Dependency<CredentialResult>;
  /** Roles, permissions and who holds them. */
  readonly roles: Roles;
  /** Scoped API keys, or null when `apiKeys` is off (then a key authenticates nothing). */
  readonly apiKeys: ApiKeys | null;
  private readonly keys: () => Promise<Buffer>;
  /** The app's secret, resolved once: keys for other purposes (sealed TOTP secrets) derive from it. */
  readonly secret: () => Promise<string>;
  /** The plugin's table names: the options' `tables` over the defaults. */
  readonly tables: Required<NonNullable<AccountOptions['tables']>>;

  constructor(readonly options: AccountOptions) {
    const tables = (this.tables = { ...DEFAULT_TABLES, ...options.tables });
    this.now = options.now ?? Date.now;
    this.secure = options.secureCookies ?? false;
    this.users = new UserTable(options.knex, options.userModel, resolveColumns(options.userModel, options.columns));
    this.ownsPool = !options.hashPool;
    this.passwords = new Passwords(options.password, options.hashPool ?? new HashPool(options.hashing));
    this.lockout = new Lockout(options.knex, tables.loginFailures, options.lockout);
    const session = options.session === false ? null : (options.session ?? {});
    this.sessions = session
      ? new SessionManager({
          name: 'session',
          store: session.store ?? new KnexSessionStore(options.knex, { table: tables.sessions }),
          secure: this.secure,
          cookieName: session.cookieName,
          idleTimeoutSeconds: session.idleTimeoutSeconds,
          absoluteTimeoutSeconds: session.absoluteTimeoutSeconds,
          maxSessionsPerUser: session.maxSessionsPerUser,
          now: this.now,
        })
      : null;
    this.csrf = session ? session.csrf !== false : false;
    this.csrfCookie = session?.csrfCookieName ?? `${this.secure ? '__Host-' : ''}cs_csrf`;
    this.managementRoutes = session?.managementRoutes ?? false;
    this.bearer = bearerSettings(options.bearer, this.secure);
    this.refreshTokens = new RefreshTokens(
      options.knex,
      tables.refreshTokens,
      (this.bearer?.refreshSeconds ?? 0) * 1000,
    );
    this.freshSignInMs = (options.freshSignInSeconds ?? 600) * 1000;
    this.sudoMs = (options.sudoSeconds ?? 300) * 1000;
    let secret: Promise<string> | undefined;
    this.secret = () => (secret ??= resolveSecret(options.secretKey));
    let key: Promise<Buffer> | undefined;
    this.keys = () => (key ??= this.secret().then((value) => deriveKey(value, 'access-token')));
    this.accessTokens = new AccessTokens(this.keys);
    this.credential = (req) => this.readCredential(req);
    this.roles = new Roles(options.knex, tables, this.now);
    const keys = options.apiKeys === true ? {} : options.apiKeys || null;
    const prefix = keys?.prefix ?? 'csk';
    if (keys && !API_KEY_PREFIX.test(prefix))
      throw new ConfigurationError('account: apiKeys.prefix must be 2 to 16 lower-case letters or digits');
    this.apiKeys = keys ? new ApiKeys(options.knex, tables.apiKeys, prefix) : null;
  }

  /** The app's secret, resolved once (startup calls this so a bad secret fails early). */
  async ready(): Promise<void> {
    await this.keys();
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

  /** Lifts a user's sign-in lockout and forgets its failures (the key `signIn` counts a known account under). */
  async unlock(userId: string | number): Promise<void> {
    await this.lockout.succeed(`user:${userId}`);
  }

  /** Whether a user's sign-in is locked out now (what `unlock` would lift). */
  async isLocked(userId: string | number): Promise<boolean> {
    const key = `user:${userId}`;
    return (await this.lockout.lockedKeys([key], this.now())).has(key);
  }

  /** Starts a session for a signed-in user, replacing the one the request came with. */
  async startSession(req: NeutralRequest, row: Row): Promise<{ cookies: CookieToSet[]; csrfToken: string }> {
    const sessions = this.requireSessions();
    const csrfToken = randomToken(32);
    const issued = await sessions.create(this.users.idOf(row), {
      data: { csrf: csrfToken, auth_time: this.now() },
      // Any session the browser had (a planted one included) ends here: no fixation.
      replaces: await sessions.load(req),
      request: req,
      userAgent: req.headers['user-agent'],
      ipAddress: req.clientAddress,
    });
    return { cookies: [issued.cookie, this.csrfCookieFor(csrfToken, issued.session)], csrfToken };
  }

  csrfCookieFor(token: string, session: Session): CookieToSet {
    const maxAge = Math.max(0, Math.floor((session.absoluteExpiresAt.getTime() - this.now()) / 1000));
    return cookie(this.csrfCookie, token, { secure: this.secure, httpOnly: false, maxAge });
  }

  /** Cookies that sign the browser out: session, CSRF and (when used) the refresh cookie. */
  signOutCookies(): CookieToSet[] {
    const cookies: CookieToSet[] = [];
    if (this.sessions)
      cookies.push(this.sessions.clearCookie(), clearCookie(this.csrfCookie, { secure: this.secure, httpOnly: false }));
    if (this.bearer?.refresh === 'cookie')
      cookies.push(clearCookie(this.bearer.refreshCookie, { secure: this.secure, httpOnly: true }));
    return cookies;
  }

  /** Signs an access token for a user. */
  async accessToken(row: Row, grant: { scope: string; authTime: number; sudoUntil?: number }): Promise<string> {
    const bearer = this.requireBearer();
    const seconds = Math.floor(this.now() / 1000);
    return this.accessTokens.sign({
      sub: String(this.users.idOf(row)),
      token_version: this.users.tokenVersionOf(row),
      scope: grant.scope,
      iat: seconds,
      exp: seconds + bearer.accessSeconds,
      auth_time: Math.floor(grant.authTime / 1000),
      ...(grant.sudoUntil ? { sudo_until: Math.floor(grant.sudoUntil / 1000) } : {}),
    });
  }

  /** The token answer: the access token, and the refresh token in the body or its cookie. */
  tokenAnswer(access: string, refresh: string | null): { json: Record<string, unknown>; cookies: CookieToSet[] } {
    const bearer = this.requireBearer();
    const json: Record<string, unknown> = {
      access_token: access,
      token_type: 'bearer',
      expires_in: bearer.accessSeconds,
    };
    const cookies: CookieToSet[] = [];
    if (refresh !== null && bearer.refresh === 'body') json.refresh_token = refresh;
    if (refresh !== null && bearer.refresh === 'cookie') {
      cookies.push(
        cookie(bearer.refreshCookie, refresh, { secure: this.secure, httpOnly: true, maxAge: bearer.refreshSeconds }),
      );
    }
    return { json, cookies };
  }

  /** Issues an access token, and a new refresh-token family unless refresh is off. */
  async issueTokens(
    row: Row,
    grant: { scope: string; authTime: number },
  ): Promise<{ json: Record<string, unknown>; cookies: CookieToSet[] }> {
    const bearer = this.requireBearer();
    const access = await this.accessToken(row, grant);
    let refresh: string | null = null;
    if (bearer.refresh !== 'none') {
      const userId = String(this.users.idOf(row));
      ({ token: refresh } = await this.refreshTokens.issue(
        { userId, scope: grant.scope, tokenVersion: this.users.tokenVersionOf(row), authTime: grant.authTime },
        this.now(),
      ));
    }
    return this.tokenAnswer(access, refresh);
  }

  /** Ends every session and refresh token of a user (soft delete, hard delete, compromise). */
  async signOutEverywhere(userId: string | number, options: { keep?: Session | null } = {}): Promise<void> {
    await this.sessions?.revokeAll(userId, { keep: options.keep });
    await this.refreshTokens.revokeUser(String(userId), this.now());
  }

  requireSessions(): SessionManager {
    if (!this.sessions) throw new Error('account: the session transport is not enabled');
    return this.sessions;
  }

  requireBearer(): BearerSettings {
    if (!this.bearer) throw new Error('account: the bearer transport is not enabled');
    return this.bearer;
  }

  /** Whether the request is a session request allowed to use an unsafe verb. */
  csrfPasses(req: NeutralRequest, session: Session): boolean {
    if (!this.csrf || !UNSAFE.has(req.method)) return true;
    const sent = req.headers[CSRF_HEADER];
    const expected = session.data.csrf;
    return typeof sent === 'string' && typeof expected === 'string' && sent.length > 0 && safeEqual(sent, expected);
  }

  // Authorization header first (tokens travel there only, never in the query), then the
  // session cookie. The user row is loaded fresh on every request, so a change to a user applies from their next request.
  private async readCredential(req: NeutralRequest): Promise<CredentialResult> {
    const key = this.apiKeys ? presentedKey(this.apiKeys, req) : null;
    if (key !== null) return apiKeyCredential(this, key, req.clientAddress);
    if (req.headers.authorization !== undefined && this.bearer) return this.bearerCredential(req);
    return { credential: await req.resolve(this.sessionCredential), invalidToken: false };
  }

  /** The session credential alone, whatever the Authorization header says (session routes). */
  readonly sessionCredential: Dependency<Credential | null> = async (req) => {
    const session = this.sessions ? await this.sessions.load(req) : null;
    if (!session) return null;
    const row = await this.users.findById(session.userId);
    if (!row) {
      // The user was deleted (soft or hard) since: this session is over.
      await this.sessions!.revoke(session);
      return null;
    }
    return {
      row,
      transport: 'session',
      scopes: this.scopesOf(row),
      session,
      claims: null,
      authTime: Number(session.data.auth_time ?? session.createdAt.getTime()),
      csrfOk: this.csrfPasses(req, session),
    };
  };

  private async bearerCredential(req: NeutralRequest): Promise<CredentialResult> {
    // RFC 7235: the auth-scheme is case-insensitive.
    const match = /^bearer +([A-Za-z0-9_.~+/=-]+) *$/i.exec(req.headers.authorization ?? '');
    const claims = match ? await this.accessTokens.verify(match[1], Math.floor(this.now() / 1000)) : null;
    const row = claims ? await this.users.findById(claims.sub) : null;
    // A token minted before the last password change (or for a deleted user) is dead.
    if (!claims || !row || this.users.tokenVersionOf(row) !== claims.token_version)
      return { credential: null, invalidToken: true };
    const held = this.scopesOf(row);
    const scopes = claims.scope.split(' ').filter((s) => s && held.includes(s));
    return {
      credential: {
        row,
        transport: 'bearer',
        scopes,
        session: null,
        claims,
        authTime: claims.auth_time * 1000,
        csrfOk: true,
      },
      invalidToken: false,
    };
  }
}

function bearerSettings(option: BearerTransportOptions | boolean | undefined, secure: boolean): BearerSettings | null {
  if (!option) return null;
  const given = option === true ? {} : option;
  return {
    accessSeconds: given.accessTokenSeconds ?? 900,
    refresh: given.refresh ?? 'body',
    refreshSeconds: given.refreshTokenSeconds ?? 30 * 86_400,
    refreshCookie: given.refreshCookieName ?? `${secure ? '__Host-' : ''}cs_refresh`,
  };
}

async function resolveSecret(secret: AccountOptions['secretKey']): Promise<string> {
  const value = typeof secret === 'function' ? await secret() : secret;
  if (typeof value !== 'string' || value.length < 32) {
    throw new Error('account: secretKey must be a string of at least 32 characters');
  }
  return value;
}
