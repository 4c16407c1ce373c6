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
