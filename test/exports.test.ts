import { describe, expect, expectTypeOf, it } from 'vitest';
import * as core from '@crudsmith/core';
import * as coreAdapter from '@crudsmith/core/adapter';
import * as coreAuth from '@crudsmith/core/auth';
import * as coreSession from '@crudsmith/core/session';
import * as coreServer from '@crudsmith/core/server';
import * as coreS3 from '@crudsmith/core/s3';
import * as koa from '@crudsmith/koa';
import * as express from '@crudsmith/express';
import * as fastify from '@crudsmith/fastify';
import * as account from '@crudsmith/account';
import * as accountRedis from '@crudsmith/account/redis';
import * as rateLimit from '@crudsmith/rate-limit';
import * as rateLimitRedis from '@crudsmith/rate-limit/redis';
import * as versioning from '@crudsmith/versioning';
import * as adminEntry from '@crudsmith/admin';
import * as client from '@crudsmith/client';
import * as clientGenerate from '@crudsmith/client/generate';

/** @crudsmith/core/auth's names: sessions, secrets, passwords and the sign-in lockout. */
const authNames = [
  // sessions
  'SessionManager',
  'MemorySessionStore',
  'KnexSessionStore',
  'sessionTableMigration',
  'sessionMigrations',
  // secrets
  'randomToken',
  'hashSecret',
  'safeEqual',
  // passwords
  'HashPool',
  'PasswordHasher',
  'bcryptInput',
  'normalizePassword',
  'BCRYPT_MAX_BYTES',
  // sign-in lockout
  'Lockout',
  'loginFailureMigration',
  'loginLockoutsMigration',
];

// Each package entry's public surface is a contract: adding or removing an export is a
// deliberate change of its list here (and of the packaging test, which loads the builds).
const entries: [string, object, string[]][] = [
  [
    '@crudsmith/core',
    core,
    [
      // errors
      'BadRequestError',
      'ConfigurationError',
      'ConflictError',
      'DuplicateValueError',
      'ForbiddenError',
      'HttpError',
      'NotFoundError',
      'PayloadTooLargeError',
      'RateLimitError',
      'UnauthorizedError',
      'ValidationError',
      'mapDatabaseError',
      'ServiceUnavailableError',
      'DatabaseUnavailableError',
      'MissingFulltextIndexError',
      'MultipleRowsError',
      'UriTooLongError',
      'UnsupportedMediaTypeError',
      'PreconditionFailedError',
      'PreconditionRequiredError',
      'IdempotencyKeyInUseError',
      'IdempotencyKeyReusedError',
      'TooManyItemsError',
      'TooManyAffectedError',
      'ExportFormatError',
      // decorators and the registry
      'Crud',
      'crud',
      'SoftDelete',
      'softDelete',
      'Filter',
      'filter',
      'Access',
      'access',
      'Registry',
      'createRegistry',
      'routesOf',
      // generated endpoints
      'EndpointCreator',
      'crudRouter',
      'FilterConfig',
      'policyOf',
      'permits',
      'rowOnlyFields',
      'withheldFields',
      'ACCESS_OPERATIONS',
      'CreateConfig',
      'UpdateConfig',
      'DeleteConfig',
      'PaginatedRequestQuery',
      'CursorPaginatedRequestQuery',
      'parseListQuery',
      'validateBody',
      'exportAnswer',
      'DEFAULT_EXPORT_PAGE_SIZE',
      'exportEncoder',
      'csvCell',
      'csvCellText',
      'csvLine',
      'EXPORT_FORMATS',
      // data access and migrations
      'CrudRepository',
      'modelInfo',
      'dialectOf',
      'migrationSource',
      'directoryMigrations',
      'idempotencyMigrations',
      'idempotencyTableMigration',
      'idempotencyInSession',
      'IDEMPOTENCY_TABLE',
      'withDatabaseTimeouts',
      'DEFAULT_DATABASE_TIMEOUTS',
      'usePreparedStatements',
      'useReplicas',
      'DEFAULT_REPLICA_OPTIONS',
      'readFromPrimary',
      'CONSISTENCY_HEADER',
      'CONSISTENCY_COOKIE',
      // route docs
      'columnJsonSchema',
      'schemaToJsonSchema',
      'ERROR_SCHEMA',
      'VALIDATION_ERROR_SCHEMA',
      'schemaFields',
      // plugins and bootstrap
      'bootstrap',
      'principalOf',
      'setPrincipalResolver',
      // uploaded files
      'localStorage',
      'checkStorageKey',
    ],
  ],
  [
    '@crudsmith/core/adapter',
    coreAdapter,
    [
      'adapterSettings',
      'bodyLimitOf',
      'fallbackAt',
      'answer',
      'allowedMethods',
      'otherMethodResult',
      'runFallback',
      'mountPlan',
      'answerRequest',
      'errorLoggerFor',
      'createRequest',
      'routeRunner',
      'runRoute',
      'errorToResult',
      'readBody',
      'readBodyByType',
      'checkJsonDepth',
      'flattenHeaders',
      'decodePath',
      'splitUrl',
      'cookiesOf',
      'parseQuery',
      'toPayload',
      'hasContentType',
      'isPlainJson',
    ],
  ],
  ['@crudsmith/core/auth', coreAuth, authNames],
  // The old name of /auth, kept for existing apps: the same names.
  ['@crudsmith/core/session', coreSession, authNames],
  [
    '@crudsmith/core/server',
    coreServer,
    [
      // health and readiness
      'healthRoutes',
      'knexCheck',
      // shutdown, load shedding and request logs
      'gracefulShutdown',
      'ShutdownState',
      'loadShedding',
      'LoadMonitor',
      'OverloadedError',
      'requestLog',
      'REQUEST_ID_HEADER',
      'requestIdFrom',
      'MAX_REQUEST_ID_LENGTH',
    ],
  ],
  ['@crudsmith/core/s3', coreS3, ['s3Storage', 'StorageUnavailableError']],
  ['@crudsmith/koa', koa, ['mountRoutes', 'koaSessionOptions']],
  ['@crudsmith/express', express, ['mountRoutes']],
  ['@crudsmith/fastify', fastify, ['mountRoutes', 'frameworkErrors']],
  ['@crudsmith/account', account, ['account', 'smtpTransport', 'outbox']],
  ['@crudsmith/account/redis', accountRedis, ['RedisSessionStore', 'RedisChallengeStore']],
  [
    '@crudsmith/rate-limit',
    rateLimit,
    [
      'rateLimit',
      'decide',
      'windowStart',
      'sanitizePath',
      'rateLimitKey',
      'rateLimitHeaders',
      'MemoryStore',
      'StoreUnavailableError',
      'rateLimitMigrations',
      'Tier',
      'RateLimit',
      'TierService',
      'TierCache',
      'rateLimitSettings',
      'clusterNodes',
    ],
  ],
  ['@crudsmith/rate-limit/redis', rateLimitRedis, ['RedisStore', 'RedisInvalidation', 'createRedisClient']],
  [
    '@crudsmith/versioning',
    versioning,
    ['versioning', 'parseDeprecation', 'deprecationHeaders', 'buildOpenApiDocument'],
  ],
  [
    '@crudsmith/client',
    client,
    [
      'HttpClient',
      'BearerAuth',
      'SessionAuth',
      'bearerAuth',
      'sessionAuth',
      'AccountClient',
      'resource',
      'operation',
      'listQuery',
      'ApiError',
      'BadRequestError',
      'UnauthorizedError',
      'ForbiddenError',
      'NotFoundError',
      'ConflictError',
      'PreconditionFailedError',
      'PayloadTooLargeError',
      'ValidationError',
      'PreconditionRequiredError',
      'RateLimitError',
      'ServiceUnavailableError',
      'ServerError',
      'TimeoutError',
      'errorFor',
      'retryAfterSeconds',
    ],
  ],
  ['@crudsmith/client/generate', clientGenerate, ['generateModule', 'loadDocuments', 'runCli']],
  [
    '@crudsmith/admin',
    adminEntry,
    ['admin', 'adminUserOf', 'AdminSchemaError', 'AdminModelTypeError', 'AdminDependencyError'],
  ],
];

describe('package entries', () => {
  it.each(entries)('%s exports exactly its documented names', (_name, entry, names) => {
    expect(Object.keys(entry).sort()).toEqual([...names].sort());
  });
});

describe('shared types', () => {
  // Type-only: a plugin may not import another, so what two plugins speak is core's, once.
  it('the API key contract of the account plugin and the admin is core’s', () => {
    expectTypeOf<account.ApiKeyEvent>().toEqualTypeOf<coreAuth.ApiKeyEvent>();
    expectTypeOf<Parameters<adminEntry.AdminPlugin['apiKeyEvent']>[0]>().toEqualTypeOf<coreAuth.ApiKeyEvent>();
    expectTypeOf<account.OperatorApiKeys>().toEqualTypeOf<coreAuth.OperatorApiKeys<account.ApiKey>>();
    expectTypeOf<account.OperatorApiKeys>().toMatchTypeOf<NonNullable<adminEntry.AdminOptions['apiKeys']>>();
  });
});
