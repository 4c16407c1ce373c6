import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, HttpError, UriTooLongError } from '@crudsmith/core';
import { errorToResult } from '@crudsmith/core/adapter';
import { writeResult } from './write-result';

/**
 * Renders an error of Fastify or of the app's own hooks as the one error body, JSON
 * `{"detail": ...}`: an HttpError as it is, any other 4xx with its status and message
 * (Fastify's are fixed sentences), anything else as a 500 that reveals nothing.
 */
export function toKnownError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const { code, statusCode, message } = error as Partial<FastifyError>;
  // Fixed sentences: Fastify's own messages repeat the path the client sent.
  if (code === 'FST_ERR_BAD_URL') return new BadRequestError('Path is not valid percent-encoded UTF-8');
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return new UriTooLongError('Path parameter too long');
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return new HttpError(statusCode, message || 'Bad request');
  return error;
}

/**
 * Fastify answers a few requests before any route or plugin runs: a path that is not valid
 * percent-encoding (400) or a parameter over `maxParamLength` (414). A plugin cannot reach
 * those answers, so pass this to your app to keep every error body JSON `{detail}`:
 *
 * @example
 * const app = Fastify({ frameworkErrors });
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  writeResult(reply, errorToResult(toKnownError(error)));
}
