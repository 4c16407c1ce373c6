import { describe, expect, it } from 'vitest';
import * as core from '@crudsmith/core';

// The public surface is a contract (STYLE rule 12): adding or removing an export is a
// deliberate change of this list.
describe('@crudsmith/core exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(core).sort()).toEqual([
      'BadRequestError', 'ConfigurationError', 'ConflictError', 'CreateConfig', 'Crud', 'CrudRepository',
      'CursorPaginatedRequestQuery', 'DeleteConfig', 'DuplicateValueError', 'EndpointCreator', 'Filter', 'FilterConfig',
      'ForbiddenError', 'HttpError', 'NotFoundError', 'OPERATORS', 'PaginatedRequestQuery', 'PayloadTooLargeError',
      'RateLimitError', 'Registry', 'SoftDelete', 'UnauthorizedError', 'UpdateConfig', 'ValidationError',
      'assertNoRouteClash', 'bootstrap', 'coerceValue', 'createAddressResolver', 'createRegistry', 'createRequest', 'crud', 'crudRouter',
      'dialectOf', 'errorToResult', 'filter', 'mapDatabaseError', 'migrationSource', 'modelInfo', 'orderBySpecificity',
      'parseListQuery', 'parseSortParam', 'principalOf', 'routesOf', 'runRoute', 'schemaFields', 'schemaToJsonSchema',
      'setPrincipalResolver', 'softDelete', 'validateBody',
      // column schemas for route docs
      'columnJsonSchema',
      // plugin fallbacks (unmatched paths under a prefix)
      'fallbackFor', 'runFallback',
      // error body schemas (for OpenAPI documents)
      'ERROR_SCHEMA', 'VALIDATION_ERROR_SCHEMA',
      // sessions
      'KnexSessionStore', 'MemorySessionStore', 'SessionManager', 'hashSecret', 'randomToken', 'safeEqual',
      'sessionMigrations', 'sessionTableMigration',
      // the adapters' shared toolkit
      'checkJsonDepth', 'cookiesOf', 'decodePath', 'flattenHeaders', 'groupEntries', 'hasContentType', 'readBody',
      'readMultipart', 'splitUrl', 'toPayload', 'parseQuery',
      // knex compiles each query shape once
      'reuseCompiledSql',
    ].sort());
  });
});
