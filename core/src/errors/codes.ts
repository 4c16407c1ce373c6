// The catalogue of error codes: one stable name per kind of error, with the status it
// answers. A code is for logs, `onError` hooks and tests, which branch on it rather than on
// `instanceof` (which fails across two copies of a package) or on a message. It never
// reaches the client: the body stays `{"detail": ...}`.

/** Every code crudsmith's errors carry, with the HTTP status each answers (500: never a client's fault). */
export const ERROR_CODES = {
  /** A 4xx of the framework or the body reader passed through with its own status. */
  http_error: 400,
  bad_request: 400,
  /** A read meant for one row matched several. */
  multiple_rows: 400,
  /** A bulk update or delete would touch more rows than `Prefer: max-affected` (or the router) allows. */
  too_many_affected: 400,
  /** An export named a format it does not write, or a pagination key (it answers every row). */
  export_format: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  duplicate_value: 409,
  /** A create with this `Idempotency-Key` is still running. */
  idempotency_key_in_use: 409,
  /** An `If-Match` names a tag the row no longer has. */
  precondition_failed: 412,
  payload_too_large: 413,
  /** A bulk body holds more items than the router takes. */
  too_many_items: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  validation_failed: 422,
  /** An `Idempotency-Key` used before with another body. */
  idempotency_key_reused: 422,
  /** The route requires `If-Match` and the request has none. */
  precondition_required: 428,
  rate_limited: 429,
  service_unavailable: 503,
  database_unavailable: 503,
  configuration_error: 500,
  missing_fulltext_index: 500,
} as const;

/** A stable error code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CODES;
