import { HttpError } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { NeutralResult } from './neutral';

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
    return { status: known.status, headers: { ...known.headers }, json: { detail: known.detail } };
  }
  logger.error('Unhandled error while serving a request', error);
  return { status: 500, json: { detail: 'Internal server error' } };
}
