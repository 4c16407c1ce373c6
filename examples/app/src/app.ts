import Koa from 'koa';
import type { Knex } from 'knex';
import {
  bootstrap,
  createRegistry,
  idempotencyMigrations,
  localStorage,
  type App,
  type ErrorLogger,
  type Storage,
} from '@crudsmith/core';
import {
  healthRoutes,
  knexCheck,
  loadShedding,
  type HealthCheck,
  type LoadSheddingOptions,
  type RequestLog,
  type ShutdownState,
} from '@crudsmith/core/server';
import { HashPool, type SessionStore } from '@crudsmith/core/auth';
import { createSession } from 'koa-session';
import { koaSessionOptions, mountRoutes } from '@crudsmith/koa';
import { account, type AccountPlugin, type ChallengeStore } from '@crudsmith/account';
import type { RateLimitPlugin } from '@crudsmith/rate-limit';
import { AvatarStore } from './avatars';
import { appMigrations } from './migrations/app';
import { Item } from './models/item';
import { User } from './models/user';
import { postRoutes } from './routes/posts';
import { noteRoutes } from './routes/notes';
import { userRoutes } from './routes/users';
import { userRoutesV2 } from './routes/users-v2';
import { withUserDocs } from './routes/user-docs';
import { withTierDocs } from './routes/tier-docs';
import { staticRoutes } from './routes/static';
import { tierRoutes } from './routes/tiers';
import { exampleRateLimit, type ExampleRateLimitOptions } from './rate-limit';
import { exampleAdmin } from './admin';
import type { AdminPlugin } from '@crudsmith/admin';
import { registerLimiter } from './register-limit';
import { secretKeyProvider } from './secret-key';
import { cursorKeyFrom } from './cursor-key';
import { exampleVersions } from './versions';
import type { VersioningPlugin } from '@crudsmith/versioning';
import { sudoRoute } from './routes/sudo';
import { exampleRecovery, readMailSettings, type MailSettings } from './mail';
import { exampleOauth, type OidcSettings } from './oidc';

/** What buildApp takes beside knex (all optional; `readSettings()` gives the real ones). */
export interface BuildOptions {
  secretKey?: string;
  databaseUrl?: string;
  dataDir?: string;
  /** Where sessions live (Redis when REDIS_URL is set); the database by default. */
  sessionStore?: SessionStore;
  secureCookies?: boolean;
  bcryptRounds?: number;
  /** Most /auth/register calls per client address an hour, and as many POST /api/v1/users/ calls (REGISTER_RATE_LIMIT, default 30). */
  registerRateLimit?: number;
  /** Default limit and period, and the counters' Redis (memory when absent). */
  rateLimit?: ExampleRateLimitOptions;
  /** When /api/v1 goes away (API_V1_SUNSET, an ISO date; default in versions.ts). */
  apiV1Sunset?: string;
  /** Largest avatar upload in bytes (AVATAR_MAX_BYTES, default 2 MiB). */
  avatarMaxBytes?: number;
  /** Where uploads live (an S3 bucket with STORAGE_URL); by default the folder dataDir (avatars in `dataDir/avatars`). */
  storage?: Storage;
  /** The e-mail factor's settings (default: the outbox under dataDir, links on http://127.0.0.1:8000). */
  mail?: MailSettings;
  /** The OpenID Connect provider `oidc` (off when unset); its callback is on the mail settings' publicUrl. */
  oidc?: OidcSettings;
  /** Superusers must use two-factor (MFA_REQUIRED_FOR_SUPERUSERS, default false): they enroll at their next sign-in. */
  mfaRequiredForSuperusers?: boolean;
  /** Where two-factor challenges live (Redis when REDIS_URL is set); the database by default. */
  challengeStore?: ChallengeStore;
  /** Checks /readyz runs beside the database's (the Redis clients main.ts opens). */
  readinessChecks?: Record<string, HealthCheck>;
  /** Longest wait for each readiness check, in ms (default 1000). */
  readinessTimeoutMs?: number;
  /** Flipped by the graceful shutdown, so /readyz answers 503 while requests drain. */
  shutdown?: ShutdownState;
  /** When the process sheds load (LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS, default 1000; LOAD_SHEDDING_MAX_HEAP_RATIO, default 0.9). */
  loadShedding?: LoadSheddingOptions;
  /** One structured line per request (main.ts passes one writing through pino). */
  requestLog?: RequestLog;
  /** Where errors no route expected are reported (console by default; main.ts puts them on their request's log line). */
  logger?: ErrorLogger;
}

/** The example app, with its account plugin (for the first superuser and tests). */
export interface ExampleApp extends App {
  auth: AccountPlugin;
  limits: RateLimitPlugin;
  /** The admin interface at /admin (for the first admin user and tests). */
  admin: AdminPlugin;
  /** The API versions, each with its OpenAPI document (the typed clients are generated from them). */
  versions: VersioningPlugin;
}

/** The example application, framework-neutral: routes, plugins and migrations. */
export function buildApp(knex: Knex, options: BuildOptions = {}): ExampleApp {
  const secretKey = secretKeyProvider(
    { secretKey: options.secretKey, databaseUrl: options.databaseUrl, dataDir: options.dataDir ?? 'data' },
    knex,
  );
  // Every process derives the same cursor key from the shared secret, so a next_cursor outlives the process that issued it.
  const cursorKey = cursorKeyFrom(secretKey);
  const items = createRegistry([Item]).compile({ session: knex, defaults: { cursorKey } });
  // /auth with both transports; every /api/* route takes a session cookie or a bearer token.
  const mail =
    options.mail ?? readMailSettings({}, { host: '127.0.0.1', port: 8000, dataDir: options.dataDir ?? 'data' });
  // One bcrypt worker pool for the account plugin and the admin: one bound on hashing per process.
  const hashPool = new HashPool();
  const auth = account({
    knex,
    hashPool,
    userModel: User,
    secretKey,
    path: '/auth',
    session: { managementRoutes: true, store: options.sessionStore },
    bearer: { refresh: 'body' },
    // Roles (viewer, editor, admin: roles.ts) at /auth/roles, and API keys for scripts at /auth/api-keys.
    roleRoutes: true,
    apiKeys: true,
    // Keys made, revoked or first used through /auth are events of the admin's log.
    onApiKeyEvent: (event) => panel.apiKeyEvent(event),
    secureCookies: options.secureCookies,
    password: { bcryptRounds: options.bcryptRounds },
    registerRateLimit: { limit: options.registerRateLimit ?? 30, periodSeconds: 3600 },
    // E-mail verification, reset and change: SMTP when SMTP_URL is set, the outbox otherwise.
    recovery: exampleRecovery(mail),
    // Sign-in with OpenID Connect when OAUTH_OIDC_ISSUER, _CLIENT_ID and _CLIENT_SECRET are set.
    ...exampleOauth(options.oidc, mail.publicUrl),
    scopesOf: (user) => (user.is_superuser ? ['admin'] : []),
    // Two-factor for every account that turns it on; superusers must, with MFA_REQUIRED_FOR_SUPERUSERS=true.
    mfa: {
      issuer: 'crudsmith example',
      challengeStore: options.challengeStore,
      required: options.mfaRequiredForSuperusers ? (user) => Boolean(user.is_superuser) : undefined,
    },
  });
  const limits = exampleRateLimit(knex, options.rateLimit);
  // /admin over items, users, posts, tags, tiers and rate limits, with its own admin users and sessions.
  const panel = exampleAdmin(knex, {
    secretKey,
    secureCookies: options.secureCookies,
    bcryptRounds: options.bcryptRounds,
    tiers: limits.tiers,
    unlockUser: auth.unlock,
    isUserLocked: auth.isLocked,
    signOutUser: auth.signOutEverywhere,
    roles: auth.roles,
    apiKeys: auth.apiKeys ?? undefined,
    hashPool,
  });
  // POST /api/v1/users/ (and v2's) creates accounts as /auth/register does: the same limit per address.
  const registerLimit = registerLimiter(limits.store, { limit: options.registerRateLimit ?? 30, periodSeconds: 3600 });
  const posts = postRoutes(knex, auth, cursorKey);
  // Uploads are counted by the rate limiter in every version (v1's users routes are otherwise unlimited).
  const avatars = new AvatarStore({
    storage: options.storage ?? localStorage(options.dataDir ?? 'data'),
    maxBytes: options.avatarMaxBytes,
    uploadDependencies: [limits.limiter],
  });
  // /api/v1 and /api/v2: the versioning plugin mounts each version's routers.
  const versions = exampleVersions(
    {
      v1: [
        ...items,
        withUserDocs('v1', userRoutes(knex, auth, avatars, registerLimit)),
        postRoutes(knex, auth, cursorKey, { writes: true }),
        noteRoutes(knex, auth, cursorKey),
        withTierDocs(tierRoutes(knex, limits.tiers, auth)),
        [sudoRoute(auth)],
      ],
      v2: [...items, withUserDocs('v2', userRoutesV2(knex, auth, avatars, registerLimit)), posts, [sudoRoute(auth)]],
    },
    { auth, sunset: options.apiV1Sunset },
  );
  // First of the plugins: a shed request is refused before it is counted or touches a session.
  const shedding = loadShedding(options.loadShedding);
  const app = bootstrap({
    // Unversioned and outside the limiter's paths: probes must never be counted or refused as a client.
    routers: [
      staticRoutes(avatars),
      healthRoutes({
        checks: { database: knexCheck(knex), ...options.readinessChecks },
        timeoutMs: options.readinessTimeoutMs,
        shutdown: options.shutdown,
        load: shedding.monitor,
      }),
    ],
    plugins: [shedding, versions, limits, auth, panel, ...(options.requestLog ? [options.requestLog.plugin] : [])],
    principal: auth.principal,
    // The plugins' tables come with them; the app's set says it runs after the tiers its users reference.
    // The items' Idempotency-Key table: the items reach bootstrap through the versioning plugin, not as routers.
    migrations: [appMigrations, idempotencyMigrations()],
    logger: options.logger,
  });
  // The shared pool is the app's: ended after the plugins that use it.
  const close = async () => {
    try {
      await app.close();
    } finally {
      await hashPool.close();
    }
  };
  return { ...app, close, auth, limits, admin: panel, versions };
}

/** The Koa application serving a built app; unknown paths get the JSON 404 every adapter gives. */
export function createKoaApp(
  app: App & { auth?: AccountPlugin },
  options: { trustedProxies?: string[]; logger?: ErrorLogger } = {},
): Koa {
  const koa = new Koa();
  // On Koa, koa-session carries the account sessions, so the app's own Koa middleware sees the same ctx.session.
  const sessions = app.auth?.sessionManager ? [app.auth.sessionManager] : [];
  for (const manager of sessions) koa.use(createSession(koaSessionOptions(manager), koa));
  mountRoutes(koa, app, {
    trustedProxies: options.trustedProxies,
    logger: options.logger,
    sessions,
    jsonNotFound: true,
  });
  return koa;
}
