// @crudsmith/client: the runtime the generated modules build on (`crudsmith-client generate`).
export { HttpClient } from './http';
export type { ClientOptions, CallOptions, RequestSpec } from './http';
export { BearerAuth, SessionAuth, bearerAuth, sessionAuth } from './auth';
export type { Auth, TokenPair } from './auth';
export { AccountClient } from './account';
export type { MfaChallenge, SignInResult } from './account';
export { resource } from './resource';
export type { ResourceMethods, ResourcePaths } from './resource';
export { operation } from './operation';
export type { OperationSpec, OperationArgs, OperationOptions } from './operation';
export { listQuery } from './query';
export type {
  ResourceSpec,
  SortKey,
  OffsetQuery,
  PageQuery,
  CursorQuery,
  PaginateQuery,
  ListPage,
  NumberedPage,
  KeysetPage,
  WriteOptions,
  CreateOptions,
  ExportQuery,
  Prefer,
} from './types';
export {
  ApiError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  PreconditionFailedError,
  PayloadTooLargeError,
  ValidationError,
  PreconditionRequiredError,
  RateLimitError,
  ServiceUnavailableError,
  ServerError,
  TimeoutError,
  errorFor,
  retryAfterSeconds,
} from './errors';
export type { ValidationIssue } from './errors';
