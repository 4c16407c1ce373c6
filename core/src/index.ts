// @crudsmith/core: the application API. What only HTTP adapters need is in
// `@crudsmith/core/adapter`; sessions, secrets, passwords and the sign-in lockout are in
// `@crudsmith/core/auth`; health routes, graceful shutdown, load shedding and the request
// log are in `@crudsmith/core/server`; the S3 store is in `@crudsmith/core/s3`.

/** Errors: typed classes carrying status, `detail` and a stable `code`. */
export {
  HttpError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  DuplicateValueError,
  MultipleRowsError,
  PayloadTooLargeError,
  ValidationError,
  RateLimitError,
  ServiceUnavailableError,
  UriTooLongError,
  UnsupportedMediaTypeError,
  PreconditionFailedError,
  PreconditionRequiredError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
} from './errors/http-error';
export type { ErrorDetail, ValidationIssue } from './errors/http-error';
export type { ErrorCode } from './errors/codes';
export { TooManyItemsError, TooManyAffectedError } from './errors/bulk-errors';
export { ExportFormatError } from './errors/export-errors';
export { mapDatabaseError, DatabaseUnavailableError } from './errors/database-error';
export { ConfigurationError, MissingFulltextIndexError } from './errors/configuration-error';

/** Decorators (each with its plain-function twin) and the registry that compiles them. */
export { Crud, crud, SoftDelete, softDelete } from './decorators/crud';
export { Filter, filter } from './decorators/filter';
export { Access, access } from './decorators/access';
export type { CrudDeclaration, PropertyFilterOptions } from './decorators/metadata';
export type { SoftDeleteDeclaration } from './model/declarations';
export { Registry, createRegistry, routesOf } from './registry/registry';
export type { CompileOptions } from './registry/registry';

/** Generated CRUD endpoints, their options and the configs usable as dependencies. */
export { EndpointCreator, crudRouter } from './crud/endpoint-creator';
export type { CrudRouter, CustomRoute } from './crud/endpoint-creator';
export type { CrudOptions, OperationKey, ExportOptions } from './crud/options';
export { idempotencyInSession, type IdempotencyOptions } from './crud/idempotency';
export type { IdempotencyRedis } from './data/redis-idempotency-store';
export { idempotencyMigrations, idempotencyTableMigration, IDEMPOTENCY_TABLE } from './data/idempotency-store';
export type { BulkOptions, BulkOperation } from './crud/options';
/** Streamed exports: the encoders, and the answer that streams a list's rows in keyset pages. */
export { exportAnswer, DEFAULT_EXPORT_PAGE_SIZE } from './crud/export-stream';
export type { ExportSource } from './crud/export-stream';
export { exportEncoder, csvCell, csvCellText, csvLine, EXPORT_FORMATS } from './crud/export-format';
export type { ExportEncoder, ExportFormat } from './crud/export-format';
export { FilterConfig } from './crud/filter-config';
export type { FilterValue } from './crud/filter-config';

/** Access control: a model's policy of who may do what, on which rows and fields. */
export { policyOf } from './access/effective';
export { permits, rowOnlyFields, withheldFields } from './access/permits';
export type { EffectivePolicy } from './access/effective';
export { ACCESS_OPERATIONS } from './access/policy';
export type {
  AccessPolicy,
  AccessOperation,
  OperationRule,
  RowRule,
  FieldRule,
  FieldSet,
  RowFieldRule,
} from './access/policy';
export { CreateConfig, UpdateConfig, DeleteConfig } from './crud/field-injection';
export type { FieldInjectionInit } from './crud/field-injection';
export { PaginatedRequestQuery, CursorPaginatedRequestQuery } from './crud/paginated-query';
export { parseListQuery } from './crud/list-query';
export type { ListRequest, ListLimits } from './crud/list-query';
export { validateBody } from './schema/validate-body';
export type { CursorKey } from './data/cursor';

/** Data access: the repository, model introspection and migrations. */
export { CrudRepository } from './data/repository';
export type {
  RepositoryOptions,
  ReadOptions,
  ListOptions,
  CursorOptions,
  UpdateOptions,
  WriteOptions,
  DeleteOptions,
} from './data/repository';
export type { JoinConfig } from './data/joins';
export type { Filters } from './data/filters';
export type { Operator, CustomFilter } from './data/operators';
export { modelInfo } from './model/model-info';
export type { ModelClass, ModelInfo, ColumnInfo, ColumnKind } from './model/model-info';
export { dialectOf } from './data/dialect';
export type { Dialect } from './data/dialect';
export { migrationSource } from './migrations';
export { directoryMigrations } from './data/directory-migrations';
export { withDatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS } from './data/database-timeouts';
export { usePreparedStatements } from './data/pg-statements';
export { useReplicas, DEFAULT_REPLICA_OPTIONS } from './data/replicas';
export type { ReplicaOptions } from './data/replicas';
export { readFromPrimary } from './data/consistency';
export { CONSISTENCY_HEADER, CONSISTENCY_COOKIE } from './data/consistency-token';
export type { DatabaseTimeouts } from './data/database-timeouts';
export type { Migration, MigrationSet, KnexMigrations } from './migrations';
export type { DirectoryMigrationsOptions } from './data/directory-migrations';

/** The neutral HTTP contract routes are written against. */
export type { HttpMethod, UploadedFile, Dependency, NeutralRequest, NeutralResult, CookieToSet } from './http/neutral';
export type { RouteDescriptor, RouteDoc } from './http/route';
export type { ErrorContext, ErrorLogger } from './http/render-error';

/** JSON schemas for route docs (OpenAPI). */
export { columnJsonSchema, schemaToJsonSchema } from './schema/json-schema';
export type { JsonSchema } from './schema/json-schema';
export { schemaFields } from './schema/fields';
export type { SchemaLike } from './schema/fields';
export { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from './schema/error-schemas';

/** Plugins, the principal, and bootstrap, which wires them with the routers into an app. */
export { bootstrap } from './plugin/bootstrap';
export type { App, BootstrapOptions } from './plugin/bootstrap';
export type { Plugin, PluginHooks, BeforeHook, AfterHook, ErrorHook, Fallback } from './plugin/plugin';
export { principalOf, setPrincipalResolver } from './http/principal';
export type { Principal } from './http/principal';

/** Uploaded files: the storage contract and the local folder (the S3 store is `@crudsmith/core/s3`). */
export type { Storage, StoredObject } from './storage/storage';
export { checkStorageKey } from './storage/storage';
export { localStorage } from './storage/local-storage';
