import type { IncomingHttpHeaders } from 'node:http';
import { requestContext, type ErrorLogger } from '../http/render-error';

/**
 * The logger an adapter reports one request's unexpected errors to (a body it could not
 * read, an answer it could not write or stream, an error of its framework): the app's
 * `logger` told the request's `X-Request-Id`, so the report joins that request's log line
 * (`requestLog(...).errors`) rather than going to the console on its own. Every adapter
 * reports through it, from the node request's headers.
 */
export function errorLoggerFor(logger: ErrorLogger, headers: IncomingHttpHeaders): ErrorLogger {
  const context = requestContext(headers);
  if (!context) return logger;
  return { error: (message, error, given) => logger.error(message, error, { ...context, ...given }) };
}
