import { HttpError, type ErrorDetail } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { NeutralResult } from './neutral';

/**
 * The most entries a 422 lists; a last entry (`type: 'too_many_errors'`) says how many more
 * there were. A body of 60,000 unknown keys answered 5.4 MB of errors: the answer's size
 * must not follow the attacker's input.
 */
export const MAX_REPORTED_ISSUES = 100;

/** Where unexpected errors are reported; console by default. */
export interface ErrorLogger {
  error(message: string, error: unknown): void;
}

/**
 * Renders any thrown value as the one error body shape, `{"detail": ...}`. Known errors
 * keep their status and detail; anything else is a 500 whose detail reveals nothing,
 * logged with its stack.
 */
export function errorToResult(error: unknown, logger: ErrorLogger = console): NeutralResult {
  const known = error instanceof HttpError ? error : mapDatabaseError(error);
  if (known) {
    return { status: known.status, headers: { ...known.headers }, json: { detail: capped(known.detail) } };
  }
  logger.error('Unhandled error while serving a request', error);
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
