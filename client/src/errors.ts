// The typed errors of the client: one class per status the server answers, each with the
// status, the body's `detail` and a stable `code`, so callers branch with `instanceof`.

/** One entry of a 422 answer's `detail` list. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Any answer outside 2xx (and 304), or a request that never got one. */
export class ApiError extends Error {
  /** A stable name of the failure, independent of the message's wording. */
  readonly code: string = 'http_error';
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Headers = new Headers(),
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = new.target.name;
  }
}

/** 400: the query, path or body was malformed (an unknown sort column, conflicting pagination). */
export class BadRequestError extends ApiError {
  override readonly code: string = 'bad_request';
}
/** 401: no credential, or one the server refused (after one refresh, for a bearer client). */
export class UnauthorizedError extends ApiError {
  override readonly code: string = 'unauthorized';
}
/** 403: signed in but not allowed, or a session write without a valid CSRF token. */
export class ForbiddenError extends ApiError {
  override readonly code: string = 'forbidden';
}
/** 404: no such row (soft-deleted rows included) or route. */
export class NotFoundError extends ApiError {
  override readonly code: string = 'not_found';
}
/** 409: a unique value is taken. */
export class ConflictError extends ApiError {
  override readonly code: string = 'conflict';
}
/** 412: the row changed since the ETag given as `ifMatch`; nothing was written. */
export class PreconditionFailedError extends ApiError {
  override readonly code: string = 'precondition_failed';
}
/** 413: the body is over the server's limit. */
export class PayloadTooLargeError extends ApiError {
  override readonly code: string = 'payload_too_large';
}
/** 422: the body or a query value failed validation; `issues` is the `detail` list. */
export class ValidationError extends ApiError {
  override readonly code: string = 'validation_error';
  /** Each failed field, with its location (`['body', 'price']`). */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? (this.detail as ValidationIssue[]) : [];
  }
}
/** 428: this write needs `ifMatch`. */
export class PreconditionRequiredError extends ApiError {
  override readonly code: string = 'precondition_required';
}
/** 429: over a rate limit or a sign-in lockout; `retryAfter` in seconds when the server says. */
export class RateLimitError extends ApiError {
  override readonly code: string = 'rate_limited';
  get retryAfter(): number | null {
    return retryAfterSeconds(this.headers.get('retry-after'));
  }
}
/** 503: the server sheds load or lost its database; retried for idempotent requests. */
export class ServiceUnavailableError extends ApiError {
  override readonly code: string = 'service_unavailable';
  get retryAfter(): number | null {
    return retryAfterSeconds(this.headers.get('retry-after'));
  }
}
/** Any other 5xx. */
export class ServerError extends ApiError {
  override readonly code: string = 'server_error';
}
/** The request took longer than the `timeout` option; status 0. */
export class TimeoutError extends ApiError {
  override readonly code: string = 'timeout';
  constructor(ms: number) {
    super(0, `No answer within ${ms} ms`);
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  413: PayloadTooLargeError,
  422: ValidationError,
  428: PreconditionRequiredError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

/** The typed error of an answer's status, carrying its parsed body's `detail`. */
export function errorFor(status: number, body: unknown, headers: Headers): ApiError {
  const detail = body && typeof body === 'object' && 'detail' in body ? (body as { detail: unknown }).detail : body;
  const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new Class(status, detail, headers);
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
