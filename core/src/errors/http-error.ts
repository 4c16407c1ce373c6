import type { ErrorCode } from './codes';

/** One entry of a 422 body: where the problem is, what it is, and a machine-readable type. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The detail of an error body: a sentence, or the list of a validation failure. */
export type ErrorDetail = string | ValidationIssue[];

/** Base class of every error crudsmith turns into an HTTP answer. */
export class HttpError extends Error {
  /** A stable name for this kind of error (see ERROR_CODES), for logs and hooks; never sent. */
  readonly code: ErrorCode = 'http_error';
  readonly status: number;
  readonly detail: ErrorDetail;
  /** Extra response headers, such as `Retry-After` on a 429. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    detail: ErrorDetail,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(typeof detail === 'string' ? detail : `${status} validation failed`, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.headers = options.headers ?? {};
  }
}

/** 400: the request is malformed or contradicts itself. */
export class BadRequestError extends HttpError {
  override readonly code: ErrorCode = 'bad_request';

  constructor(detail = 'Bad request', options?: { cause?: unknown }) {
    super(400, detail, options);
  }
}

/** 401: no valid credential. */
export class UnauthorizedError extends HttpError {
  override readonly code: ErrorCode = 'unauthorized';

  constructor(detail = 'Not authenticated', options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(401, detail, options);
  }
}

/** 403: a valid credential that may not do this. */
export class ForbiddenError extends HttpError {
  override readonly code: ErrorCode = 'forbidden';

  constructor(detail = 'Forbidden', options?: { cause?: unknown }) {
    super(403, detail, options);
  }
}

/** 404: the record or route does not exist (or is soft-deleted). */
export class NotFoundError extends HttpError {
  override readonly code: ErrorCode = 'not_found';

  constructor(detail = 'Item not found', options?: { cause?: unknown }) {
    super(404, detail, options);
  }
}

/** 409: the write conflicts with what is stored. */
export class ConflictError extends HttpError {
  override readonly code: ErrorCode = 'conflict';

  constructor(detail = 'Conflict', options?: { cause?: unknown }) {
    super(409, detail, options);
  }
}

/** 409: a unique constraint refused the value. */
export class DuplicateValueError extends ConflictError {
  override readonly code: ErrorCode = 'duplicate_value';

  constructor(detail = 'Duplicate value', options?: { cause?: unknown }) {
    super(detail, options);
  }
}

/** 409: a request with this `Idempotency-Key` is still running; retry once it is done. */
export class IdempotencyKeyInUseError extends ConflictError {
  override readonly code: ErrorCode = 'idempotency_key_in_use';

  constructor(detail = 'A request with this Idempotency-Key is still in progress', options?: { cause?: unknown }) {
    super(detail, options);
  }
}

/** 400: a read that wants at most one row (`oneOrNone`) matched several. */
export class MultipleRowsError extends BadRequestError {
  override readonly code: ErrorCode = 'multiple_rows';

  constructor(detail = 'More than one record matches', options?: { cause?: unknown }) {
    super(detail, options);
    this.name = 'MultipleRowsError';
  }
}

/** 413: the body is larger than allowed. */
export class PayloadTooLargeError extends HttpError {
  override readonly code: ErrorCode = 'payload_too_large';

  constructor(detail = 'Request body too large', options?: { cause?: unknown }) {
    super(413, detail, options);
  }
}

/** 414: a part of the URI (a path parameter) is longer than the server reads. */
export class UriTooLongError extends HttpError {
  override readonly code: ErrorCode = 'uri_too_long';

  constructor(detail = 'URI too long', options?: { cause?: unknown }) {
    super(414, detail, options);
  }
}

/** 412: the row changed since the tag the request's `If-Match` names; nothing was written. */
export class PreconditionFailedError extends HttpError {
  override readonly code: ErrorCode = 'precondition_failed';

  constructor(detail = 'The item changed since the given ETag', options?: { cause?: unknown }) {
    super(412, detail, options);
  }
}

/** 428: the route writes only with an `If-Match` header. */
export class PreconditionRequiredError extends HttpError {
  override readonly code: ErrorCode = 'precondition_required';

  constructor(detail = 'If-Match is required', options?: { cause?: unknown }) {
    super(428, detail, options);
  }
}

/** 415: the body's media type is not one the route reads. */
export class UnsupportedMediaTypeError extends HttpError {
  override readonly code: ErrorCode = 'unsupported_media_type';

  constructor(detail = 'Unsupported media type', options?: { cause?: unknown }) {
    super(415, detail, options);
  }
}

/** 422: the input is well-formed but its values are not acceptable. */
export class ValidationError extends HttpError {
  override readonly code: ErrorCode = 'validation_failed';

  constructor(issues: ValidationIssue[], options?: { cause?: unknown }) {
    super(422, issues, options);
  }

  /** A 422 about a single location. */
  static of(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** 422: the `Idempotency-Key` was used before with another body. */
export class IdempotencyKeyReusedError extends ValidationError {
  override readonly code: ErrorCode = 'idempotency_key_reused';

  constructor() {
    super([
      {
        loc: ['header', 'Idempotency-Key'],
        msg: 'This Idempotency-Key was used with a different request body',
        type: 'idempotency_key_reused',
      },
    ]);
  }
}

/** 429: too many requests; `retryAfter` seconds until the next one may pass. */
export class RateLimitError extends HttpError {
  override readonly code: ErrorCode = 'rate_limited';

  constructor(detail = 'Too many requests', options: { retryAfter?: number; headers?: Record<string, string> } = {}) {
    const headers = { ...options.headers };
    if (options.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(0, Math.ceil(options.retryAfter)));
    super(429, detail, { headers });
  }
}

/**
 * 503: a service the answer needs (the database, the session store) is unreachable or did
 * not answer in time; `retryAfter` seconds (default 5) until trying again is worthwhile.
 */
export class ServiceUnavailableError extends HttpError {
  override readonly code: ErrorCode = 'service_unavailable';

  constructor(
    detail = 'Service temporarily unavailable; try again shortly',
    options: { retryAfter?: number; cause?: unknown } = {},
  ) {
    super(503, detail, {
      cause: options.cause,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(options.retryAfter ?? 5))) },
    });
  }
}
