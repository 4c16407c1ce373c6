import { join, resolve } from 'node:path';
import { clusterNodes, rateLimitSettings, type RateLimitSettings } from '@crudsmith/rate-limit';
import { readMailSettings, type MailSettings } from './mail';
import { readOidcSettings, type OidcSettings } from './oidc';
import { DEFAULT_DATABASE_TIMEOUTS, DEFAULT_REPLICA_OPTIONS, type DatabaseTimeouts } from '@crudsmith/core';
import type { LoadSheddingOptions } from '@crudsmith/core/server';
import { DEFAULT_REDIS_TIMEOUTS, type RedisTimeouts } from './session-store';
import { readStorageSettings, type S3Settings } from './storage';

/** Every setting the example reads, with its default (examples/app/README.md lists the same). */
export interface Settings {
  host: string;
  port: number;
  /** postgres://… or mysql://…; the embedded SQLite file under dataDir when unset. */
  databaseUrl?: string;
  /** DATABASE_REPLICA_URL: PostgreSQL read replicas of DATABASE_URL (postgres://…, comma-separated); none by default. */
  databaseReplicaUrls: string[];
  /** DATABASE_REPLICA_MAX_LAG_MS (10 000): a replica replaying further behind than this serves no read. */
  replicaMaxLagMs: number;
  dataDir: string;
  /** The HTTP adapter: `koa` (default), `express` or `fastify`. */
  adapter: string;
  /** Proxy addresses whose X-Forwarded-For is believed (comma-separated); none by default. */
  trustedProxies: string[];
  /** Signs tokens; generated once and kept (DATA_DIR or the database) when unset. */
  secretKey?: string;
  /** redis://…: sessions (and rate-limit counters, unless KVSTORE_RATE_LIMITER_HOST is set) live in Redis, shared by every process. */
  redisUrl?: string;
  /** REDIS_CLUSTER_NODES=host:port,host:port,...: the same on a Redis Cluster (instead of REDIS_URL; counters too, unless KVSTORE_RATE_LIMITER_* is set). */
  redisClusterNodes?: { host: string; port: number }[];
  /** Prefix of the session keys in Redis (REDIS_SESSION_PREFIX, default `cs:session:`), for deployments sharing one Redis. */
  redisSessionPrefix?: string;
  /**
   * DEFAULT_RATE_LIMIT_LIMIT (100) requests per DEFAULT_RATE_LIMIT_PERIOD (3600 s), counted
   * in the Redis of KVSTORE_RATE_LIMITER_HOST/_PORT (6379)/_DB (0), else of REDIS_URL, else in memory.
   */
  rateLimit: RateLimitSettings;
  /** SECURE_COOKIES=true marks cookies Secure (behind HTTPS); false by default. */
  secureCookies: boolean;
  /** bcrypt cost (BCRYPT_ROUNDS, default 12). */
  bcryptRounds: number;
  /** Most /auth/register calls per client address an hour, and as many POST /api/v1/users/ calls (REGISTER_RATE_LIMIT, default 30). */
  registerRateLimit: number;
  /** When /api/v1 goes away: API_V1_SUNSET, an ISO date (default 2027-06-30). */
  apiV1Sunset?: string;
  /** Largest avatar upload in bytes (AVATAR_MAX_BYTES, default 2 MiB); larger is 413. */
  avatarMaxBytes: number;
  /** STORAGE_URL=s3://bucket[/prefix] (with STORAGE_S3_*): uploads in an S3 bucket every process shares; under DATA_DIR when unset. */
  s3Storage?: S3Settings;
  /** The first superuser: ADMIN_USERNAME (admin), ADMIN_EMAIL (admin@example.com), ADMIN_PASSWORD (random, printed once). */
  admin: { username: string; email: string; password?: string };
  /** MFA_REQUIRED_FOR_SUPERUSERS=true: superusers must use two-factor (they enroll at their next sign-in); false by default. */
  mfaRequiredForSuperusers: boolean;
  /** The e-mail factor: SMTP_URL, MAIL_OUTBOX_DIR, MAIL_FROM, PUBLIC_URL, EMAIL_REQUEST_RATE_LIMIT and the token lifetimes (mail.ts). */
  mail: MailSettings;
  /** The OpenID Connect provider `oidc`: OAUTH_OIDC_ISSUER, OAUTH_OIDC_CLIENT_ID and OAUTH_OIDC_CLIENT_SECRET (all three, or it is off). */
  oidc?: OidcSettings;
  /**
   * How long a PostgreSQL or MariaDB server may take before a request answers 503, in ms:
   * DATABASE_CONNECT_TIMEOUT_MS (5000) to open a connection, DATABASE_ACQUIRE_TIMEOUT_MS
   * (10 000) to get a free pooled one, DATABASE_STATEMENT_TIMEOUT_MS (30 000) per statement,
   * DATABASE_UNRESPONSIVE_TIMEOUT_MS (4000) before a statement on a server that stopped answering gives up.
   */
  databaseTimeouts: Required<DatabaseTimeouts>;
  /** How long the sessions' Redis may take, in ms: REDIS_CONNECT_TIMEOUT_MS (2000) to connect, REDIS_COMMAND_TIMEOUT_MS (1000) per command. */
  redisTimeouts: RedisTimeouts;
  /**
   * When requests are refused with 503 and Retry-After because the process is overloaded:
   * LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS (1000; 0 = off) and LOAD_SHEDDING_MAX_HEAP_RATIO
   * (0.9 of the heap limit; 0 = off).
   */
  loadShedding: LoadSheddingOptions;
  /** Replicas that must hold a new session before sign-in answers (REDIS_WAIT_REPLICAS, default 0; 1 on a cluster with replicas keeps sessions across a failover). */
  redisWaitReplicas: number;
  /** Least level logged (LOG_LEVEL, default `info`): one of LOG_LEVELS; `silent` logs nothing. */
  logLevel: string;
  /** Longest wait for in-flight requests after SIGTERM or SIGINT, in ms (SHUTDOWN_TIMEOUT_MS, default 10 000). */
  shutdownTimeoutMs: number;
  /** How long the server keeps accepting after SIGTERM or SIGINT with /readyz at 503, in ms (SHUTDOWN_PRE_STOP_DELAY_MS, default 0). */
  shutdownPreStopDelayMs: number;
}

/** The levels LOG_LEVEL takes, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Reads the settings from the environment. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const adapter = env.ADAPTER || 'koa';
  // Checked here so a typo fails before migrations run, not after.
  if (!['koa', 'express', 'fastify'].includes(adapter))
    throw new Error(`ADAPTER=${adapter} is unknown; use koa, express or fastify`);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new Error(`LOG_LEVEL=${logLevel} is unknown; use one of ${LOG_LEVELS.join(', ')}`);
  const shutdownTimeoutMs = Number(env.SHUTDOWN_TIMEOUT_MS || 10_000);
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0)
    throw new Error(`SHUTDOWN_TIMEOUT_MS=${env.SHUTDOWN_TIMEOUT_MS} must be a whole number of milliseconds`);
  const shutdownPreStopDelayMs = Number(env.SHUTDOWN_PRE_STOP_DELAY_MS || 0);
  if (!Number.isSafeInteger(shutdownPreStopDelayMs) || shutdownPreStopDelayMs < 0) {
    throw new Error(
      `SHUTDOWN_PRE_STOP_DELAY_MS=${env.SHUTDOWN_PRE_STOP_DELAY_MS} must be a whole number of milliseconds`,
    );
  }
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES)
    throw new Error(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set; use one (REDIS_CLUSTER_NODES for a Redis Cluster)',
    );
  return {
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 8000),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReplicaUrls: replicaUrls(env),
    replicaMaxLagMs: milliseconds(env, 'DATABASE_REPLICA_MAX_LAG_MS', DEFAULT_REPLICA_OPTIONS.maxLagMs),
    dataDir: resolve(env.DATA_DIR ?? join(process.cwd(), 'data')),
    adapter,
    trustedProxies: (env.TRUSTED_PROXIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    secretKey: env.SECRET_KEY || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisClusterNodes: env.REDIS_CLUSTER_NODES
      ? clusterNodes(env.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES')
      : undefined,
    redisSessionPrefix: env.REDIS_SESSION_PREFIX || undefined,
    rateLimit: rateLimitSettings(env),
    secureCookies: env.SECURE_COOKIES === 'true',
    bcryptRounds: Number(env.BCRYPT_ROUNDS ?? 12),
    registerRateLimit: Number(env.REGISTER_RATE_LIMIT ?? 30),
    apiV1Sunset: env.API_V1_SUNSET || undefined,
    avatarMaxBytes: Number(env.AVATAR_MAX_BYTES ?? 2 * 1024 * 1024),
    s3Storage: readStorageSettings(env),
    admin: {
      username: env.ADMIN_USERNAME || 'admin',
      email: env.ADMIN_EMAIL || 'admin@example.com',
      password: env.ADMIN_PASSWORD || undefined,
    },
    mfaRequiredForSuperusers: env.MFA_REQUIRED_FOR_SUPERUSERS === 'true',
    oidc: readOidcSettings(env),
    mail: readMailSettings(env, {
      host: env.HOST ?? '127.0.0.1',
      port: Number(env.PORT ?? 8000),
      dataDir: resolve(env.DATA_DIR ?? join(process.cwd(), 'data')),
    }),
    databaseTimeouts: {
      connectMs: milliseconds(env, 'DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs),
      acquireMs: milliseconds(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.acquireMs),
      statementMs: milliseconds(env, 'DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs),
      unresponsiveMs: milliseconds(env, 'DATABASE_UNRESPONSIVE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.unresponsiveMs),
    },
    redisTimeouts: {
      connectMs: milliseconds(env, 'REDIS_CONNECT_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUTS.connectMs),
      commandMs: milliseconds(env, 'REDIS_COMMAND_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUTS.commandMs),
    },
    loadShedding: {
      maxEventLoopDelayMs: whole(env, 'LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS', 1000),
      maxHeapUsedRatio: fraction(env, 'LOAD_SHEDDING_MAX_HEAP_RATIO', 0.9),
    },
    redisWaitReplicas: whole(env, 'REDIS_WAIT_REPLICAS', 0),
    logLevel,
    shutdownTimeoutMs,
    shutdownPreStopDelayMs,
  };
}

// A timeout setting: a positive whole number of milliseconds, checked before anything connects.
function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] || fallback);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name}=${env[name]} must be a positive whole number of milliseconds`);
  return value;
}

// DATABASE_REPLICA_URL: replicas of a PostgreSQL DATABASE_URL, checked before anything connects.
function replicaUrls(env: NodeJS.ProcessEnv): string[] {
  const urls = (env.DATABASE_REPLICA_URL ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (urls.length === 0) return urls;
  const isPostgres = (url: string | undefined) => url !== undefined && /^postgres(ql)?:\/\//.test(url);
  if (!isPostgres(env.DATABASE_URL)) throw new Error('DATABASE_REPLICA_URL needs DATABASE_URL to be a postgres:// URL');
  for (const url of urls)
    if (!isPostgres(url)) throw new Error('DATABASE_REPLICA_URL must list postgres:// URLs, comma-separated');
  return urls;
}

// A whole number of at least 0 (0 turns the feature off).
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] || fallback);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name}=${env[name]} must be a whole number`);
  return value;
}

// A fraction from 0 to 1.
function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] || fallback);
  if (!(value >= 0 && value <= 1)) throw new Error(`${name}=${env[name]} must be a number from 0 to 1`);
  return value;
}
