import { HttpError, type ErrorDetail } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { NeutralResult } from './neutral';

/**
 * The most entries a 422 lists; a last entry (`type: 'too_many_errors'`) says how many more
 * there were. A body of 60,000 unknown keys answered 5.4 MB of errors: the answer's size
 * must not follow the attacker's input.
 */
export const MAX_REPORTED_ISSUES = 100;

/** What is known of the request an unexpected error broke, for the report. */
export interface ErrorContext {
  /** The request's `X-Request-Id` (the request log's id when it is attached). */
  requestId?: string;
}

/** Where unexpected errors are reported; console by default. */
export interface ErrorLogger {
  error(message: string, error: unknown, context?: ErrorContext): void;
  /** Where startup advice goes (bootstrap's index check); a logger without it gets none. */
  warn?(message: string): void;
}

/**
 * Renders any thrown value as the one error body shape, `{"detail": ...}`. Known errors
 * keep their status and detail; anything else is a 500 whose detail reveals nothing,
 * reported to `logger` (with `context`, when the request is known).
 */
export function errorToResult(error: unknown, logger: ErrorLogger = console, context?: ErrorContext): NeutralResult {
  const known = error instanceof HttpError ? error : mapDatabaseError(error);
  if (known) {
    return { status: known.status, headers: { ...known.headers }, json: { detail: capped(known.detail) } };
  }
  if (context) logger.error('Unhandled error while serving a request', error, context);
  else logger.error('Unhandled error while serving a request', error);
  return { status: 500, json: { detail: 'Internal server error' } };
}

function capped(detail: ErrorDetail): ErrorDetail {
  if (typeof detail === 'string' || detail.length <= MAX_REPORTED_ISSUES) return detail;
  const omitted = detail.length - MAX_REPORTED_ISSUES;
  return [
    ...detail.slice(0, MAX_REPORTED_ISSUES),
    { loc: [], msg: `${omitted} more error${omitted === 1 ? '' : 's'} omitted`, type: 'too_many_errors' },
  ];
}

/** The context of a request by its headers: its `X-Request-Id` when it has one. */
export function requestContext(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): ErrorContext | undefined {
  const requestId = headers['x-request-id'];
  return typeof requestId === 'string' ? { requestId } : undefined;
}
