import type { Knex } from 'knex';
import type { ModelClass } from '@crudsmith/core';
import type { ApiKeyEvent, SessionStore, HashPool, HashingOptions, LockoutOptions } from '@crudsmith/core/auth';
import type { RecoveryOptions } from './recovery/recovery-options';
import type { OidcProviderOptions } from './oauth/oauth-options';
import type { MfaOptions } from './mfa/mfa-options';
import type { AccountUser } from './account-user';

/** Which columns of the app's user model hold what the account plugin needs. */
export interface UserColumns {
  /** Default: the model's idColumn. */
  id: string;
  username: string;
  /** Null when the model has no e-mail column. */
  email: string | null;
  /** A phone number in E.164 (`+4915112345678`), for the phone recovery factor; null when there is none. */
  phone: string | null;
  passwordHash: string;
  isSuperuser: string | null;
  isVerified: string | null;
  /** Soft-delete flag: a flagged user is signed out everywhere and cannot sign in. */
  isDeleted: string | null;
  /** Bumped on a password change: every access token issued before dies. */
  tokenVersion: string;
  tierId: string | null;
}

/** The session transport (the default): server-side sessions, an HttpOnly cookie, CSRF. */
export interface SessionTransportOptions {
  /** Where sessions live; default: the `account_sessions` table through knex. In Redis: `RedisSessionStore` from `@crudsmith/account/redis`. */
  store?: SessionStore;
  /** Require the CSRF header on unsafe verbs of session requests (default true). */
  csrf?: boolean;
  /** Mount `/sessions`, `DELETE /sessions/:id`, `/logout-all`, `/csrf/refresh` (default false). */
  managementRoutes?: boolean;
  cookieName?: string;
  csrfCookieName?: string;
  idleTimeoutSeconds?: number;
  absoluteTimeoutSeconds?: number;
  maxSessionsPerUser?: number;
}

/** The bearer transport: short-lived signed access tokens and rotating refresh tokens. */
export interface BearerTransportOptions {
  /** Lifetime of an access token (default 900 s). */
  accessTokenSeconds?: number;
  /** How the refresh token travels: `body` (JSON), `cookie` (HttpOnly) or `none` (default `body`). */
  refresh?: 'body' | 'cookie' | 'none';
  /** Lifetime of a refresh token; each rotation starts a new one (default 30 days). */
  refreshTokenSeconds?: number;
  refreshCookieName?: string;
}

/** The password policy (NIST SP 800-63B): length and a blocklist, no composition rules. */
export interface PasswordPolicyOptions {
  /** Fewest characters, counted after NFKC normalisation (default 8, never less). */
  minLength?: number;
  /** Most characters (default 1024); longer passphrases are pre-hashed, never truncated. */
  maxLength?: number;
  /** Extra words to refuse, beside the common-password list. */
  blocklist?: Iterable<string>;
  /** bcrypt cost (default 12; 4 is the least bcrypt allows, for tests). */
  bcryptRounds?: number;
}

/** Sign-in lockout per account, shared by `/login` and `/token`. */
export type { LockoutOptions };

/** Options of `account()`. */
export interface AccountOptions {
  knex: Knex;
  /** The app's user model; its table is the app's own (the plugin never creates it). */
  userModel: ModelClass;
  columns?: Partial<UserColumns>;
  /** Signs access tokens (HMAC-SHA256); a function is called once, at the first need. */
  secretKey: string | (() => string | Promise<string>);
  /** Prefix of every route, such as `/auth` (default none). */
  path?: string;
  /** Add `router` to the plugin's routes (default true); false to mount the routers yourself. */
  mount?: boolean;
  /** The session transport (default on); false to leave it out. */
  session?: SessionTransportOptions | false;
  /** The bearer transport (default off); true or options to add it. */
  bearer?: BearerTransportOptions | boolean;
  /** Mark every cookie Secure (and use `__Host-` names). */
  secureCookies?: boolean;
  password?: PasswordPolicyOptions;
  lockout?: LockoutOptions;
  /** Most `/register` calls per client address in a window (default none: no limit). */
  registerRateLimit?: { limit: number; periodSeconds: number };
  /** `/set-password` needs a sign-in this recent (default 600 s). */
  freshSignInSeconds?: number;
  /** Two-factor authentication (TOTP with recovery codes) and its `/mfa` routes (default off); true or options to add it. */
  mfa?: MfaOptions | boolean;
  /** How long `sudo.elevate` lasts (default 300 s). */
  sudoSeconds?: number;
  /** Fields `/register` takes beside username, email and password (default: `name` when the model has it). */
  registerFields?: string[];
  /** The scopes a user holds (default: none). Tokens carry what was asked of these. */
  scopesOf?: (user: AccountUser) => string[];
  /** Origins whose cross-site `/login` is allowed (default none). */
  trustedOrigins?: string[];
  /** bcrypt's worker threads and the bounds on concurrent hashing (per client address: 429; overall: 503). */
  hashing?: HashingOptions;
  /**
   * A bcrypt pool shared with other plugins (the admin's `hashPool`), so the process runs
   * one set of worker threads and one bound on concurrent hashing. Default: a pool of the
   * plugin's own from `hashing`, ended with the plugin; a given pool is the app's to close.
   */
  hashPool?: HashPool;
  /** Table names of the plugin's own tables. */
  tables?: {
    sessions?: string;
    refreshTokens?: string;
    loginFailures?: string;
    tokens?: string;
    oauthFlows?: string;
    identities?: string;
    roles?: string;
    rolePermissions?: string;
    userRoles?: string;
    accessVersion?: string;
    apiKeys?: string;
  };
  /**
   * Scoped API keys: mounts `POST`/`GET /api-keys` and `DELETE /api-keys/{id}`, and lets a
   * key (in `X-API-Key` or as `Authorization: Bearer`) authenticate as its owner, narrowed
   * to its scopes. `prefix` (default `csk`) starts every key, so a leaked one is recognisable.
   */
  apiKeys?: boolean | { prefix?: string };
  /**
   * Called after an API key is created, revoked or used for the first time (for an audit
   * log; the admin's `apiKeyEvent` writes its event log): the owner, the key's
   * id, name and prefix, and the caller's address; never the secret. A hook that throws or
   * rejects is reported on the console and does not fail the request.
   */
  onApiKeyEvent?: (event: ApiKeyEvent) => void | Promise<void>;
  /** Mounts the superuser-only role routes: `GET`/`POST /roles` and `PUT /users/{id}/roles`. */
  roleRoutes?: boolean;
  /** The e-mail factor (or a phone factor): mounts verification, password reset and address change. */
  recovery?: RecoveryOptions;
  /** OpenID Connect providers by name (such as `oidc`): mounts `/oauth/{provider}/authorize` and `/callback`; needs the session transport and `redirectBaseUrl`. */
  oauthProviders?: Record<string, OidcProviderOptions>;
  /** The public base URL providers send the browser back to (`https://api.example.com`); the callback is this plus `path` and the callback path. */
  redirectBaseUrl?: string;
  /** `redirect` (default): both OAuth routes answer 307; `json`: the authorize URL, the session, or a 400 with the error code, as JSON. */
  oauthResponseMode?: 'redirect' | 'json';
  /** Paths of the OAuth routes, each holding `:provider` (default `/oauth/:provider/authorize` and `/oauth/:provider/callback`). */
  oauthPaths?: { authorize?: string; callback?: string };
  /** Most OAuth sign-ins one client address may start in a window, each a stored flow (default 120 in 600 s); past it, 429. */
  oauthRateLimit?: { limit: number; periodSeconds: number };
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/** What `onApiKeyEvent` hears (core's, which the admin records). */
export type { ApiKeyEvent };

/** A user row as the plugin hands it out: every column except the password hash. */
export type { AccountUser };
