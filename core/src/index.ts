// @crudsmith/core: the framework-neutral heart. Adapters and plugins import from here only.

/** Errors: typed classes carrying status and `detail`, and the one renderer. */
export {
  HttpError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  DuplicateValueError,
  PayloadTooLargeError,
  ValidationError,
  RateLimitError,
  ConfigurationError,
} from './errors/http-error';
export type { ErrorDetail, ValidationIssue } from './errors/http-error';
export { mapDatabaseError } from './errors/database-error';

/** The neutral HTTP contract adapters speak. */
export { createRequest } from './http/neutral';
export type { HttpMethod, UploadedFile, Dependency, NeutralRequest, NeutralResult, CookieToSet, RequestInit } from './http/neutral';
export type { RouteDescriptor, RouteDoc } from './http/route';
export { runRoute } from './http/run-route';
export { errorToResult } from './http/render-error';
export type { ErrorLogger } from './http/render-error';
export { createAddressResolver } from './http/client-address';
export type { AddressResolver } from './http/client-address';

/** Data access: the repository and the pieces it is built from. */
export { CrudRepository } from './data/repository';
export type { RepositoryOptions, ReadOptions, ListOptions, CursorOptions, UpdateOptions, WriteOptions, DeleteOptions } from './data/repository';
export type { JoinConfig } from './data/joins';
export type { Filters } from './data/filters';
export { OPERATORS } from './data/operators';
export type { Operator, CustomFilter } from './data/operators';
export { modelInfo } from './data/model-info';
export type { ModelClass, ModelInfo, ColumnInfo, ColumnKind } from './data/model-info';
export { coerceValue } from './data/coerce';
export { parseSortParam } from './data/sort';
export { dialectOf } from './data/dialect';
export { reuseCompiledSql } from './data/compiled-sql';
export type { Dialect } from './data/dialect';
export { schemaFields } from './schema/fields';
export type { SchemaLike } from './schema/fields';
export { migrationSource } from './data/migrations';
export type { Migration, MigrationSet } from './data/migrations';

/** Generated CRUD endpoints. */
export { EndpointCreator, crudRouter } from './crud/endpoint-creator';
export type { CrudRouter, CustomRoute } from './crud/endpoint-creator';
export type { CrudOptions, OperationKey } from './crud/options';
export { FilterConfig } from './crud/filter-config';
export type { FilterValue } from './crud/filter-config';
export { CreateConfig, UpdateConfig, DeleteConfig } from './crud/field-injection';
export type { FieldInjectionInit } from './crud/field-injection';
export { PaginatedRequestQuery, CursorPaginatedRequestQuery } from './crud/paginated-query';
export { parseListQuery } from './crud/list-query';
export type { ListRequest, ListLimits } from './crud/list-query';
export { validateBody } from './schema/validate-body';
export { columnJsonSchema, schemaToJsonSchema } from './schema/json-schema';
export type { JsonSchema } from './schema/json-schema';
export { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from './schema/error-schemas';
export { orderBySpecificity, assertNoRouteClash } from './http/route-order';

/** The adapters' shared toolkit: reading a Node request's parts and body, and deciding the bytes of a result. */
export { readBody, groupEntries, checkJsonDepth } from './http/wire/read-body';
export { readMultipart } from './http/wire/read-multipart';
export type { MultipartBody } from './http/wire/read-multipart';
export { flattenHeaders, decodePath, splitUrl, cookiesOf, parseQuery } from './http/wire/request-parts';
export { toPayload, hasContentType } from './http/wire/payload';
export type { Payload } from './http/wire/payload';

/** Decorators (each with its plain-function twin) and the registry that compiles them. */
export { Crud, crud, SoftDelete, softDelete } from './decorators/crud';
export { Filter, filter } from './decorators/filter';
export type { CrudDeclaration, SoftDeleteDeclaration, PropertyFilterOptions } from './decorators/metadata';
export { Registry, createRegistry, routesOf } from './registry/registry';
export type { CompileOptions } from './registry/registry';

/** Plugins and bootstrap. */
export { bootstrap } from './plugin/bootstrap';
export type { App, BootstrapOptions } from './plugin/bootstrap';
export type { Plugin, BeforeHook, AfterHook, ErrorHook, Fallback } from './plugin/plugin';
export { fallbackFor, runFallback } from './plugin/fallback';
export { principalOf, setPrincipalResolver } from './plugin/principal';
export type { Principal } from './plugin/principal';

/** Server-side sessions: the manager that owns every rule, its store contract and stores, and secret helpers. */
export { SessionManager } from './session/session-manager';
export type { Session, SessionManagerOptions, IssuedSession } from './session/session-manager';
export type { SessionStore, SessionRecord, SessionChanges } from './session/session-store';
export type { SessionCarrier } from './session/session-carrier';
export { MemorySessionStore } from './session/memory-session-store';
export { KnexSessionStore, sessionTableMigration, sessionMigrations } from './session/knex-session-store';
export type { KnexSessionStoreOptions } from './session/knex-session-store';
export { randomToken, hashSecret, safeEqual } from './session/session-secret';
