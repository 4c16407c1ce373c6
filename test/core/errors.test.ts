import { describe, expect, it, vi } from 'vitest';
import { KnexTimeoutError } from 'knex';
import {
  ExportFormatError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  DatabaseUnavailableError,
  DuplicateValueError,
  ForbiddenError,
  HttpError,
  MissingFulltextIndexError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  UriTooLongError,
  ValidationError,
  mapDatabaseError,
} from '@crudsmith/core';
import { ERROR_CODES } from '../../core/src/errors/codes';
import { errorToResult } from '@crudsmith/core/adapter';

describe('errorToResult', () => {
  it('renders a known error with its status and detail', () => {
    expect(errorToResult(new NotFoundError())).toEqual({
      status: 404,
      headers: {},
      json: { detail: 'Item not found' },
    });
    expect(errorToResult(new BadRequestError('Conflicting parameters')).status).toBe(400);
  });

  it('renders a 422 with the list of issues', () => {
    const result = errorToResult(ValidationError.of(['query', 'limit'], 'must be at least 1'));
    expect(result.status).toBe(422);
    expect(result.json).toEqual({
      detail: [{ loc: ['query', 'limit'], msg: 'must be at least 1', type: 'value_error' }],
    });
  });

  it('carries Retry-After on a 429', () => {
    const result = errorToResult(new RateLimitError('Rate limit exceeded', { retryAfter: 12.2 }));
    expect(result.status).toBe(429);
    expect(result.headers).toEqual({ 'Retry-After': '13' });
  });

  it('hides an unexpected error behind a generic 500 and logs it', () => {
    const logger = { error: vi.fn() };
    const secret = new Error('password=hunter2 at /srv/app.ts');
    const result = errorToResult(secret, logger);
    expect(result).toEqual({ status: 500, json: { detail: 'Internal server error' } });
    expect(logger.error).toHaveBeenCalledWith(expect.any(String), secret);
  });
});

describe('mapDatabaseError', () => {
  it("maps each engine's unique violation to DuplicateValueError", () => {
    expect(mapDatabaseError({ code: '23505' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ errno: 1062, code: 'ER_DUP_ENTRY' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ nativeError: { code: '23505' } })).toBeInstanceOf(DuplicateValueError);
  });

  it("leaves errors that are not the client's fault alone", () => {
    expect(mapDatabaseError(new Error('connection refused'))).toBeUndefined();
  });

  it("maps every engine's connection-level failure and timeout to a 503 with Retry-After, by code, never by text", () => {
    const unreachable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111 }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT', fatal: true }),
      new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.'),
      { code: '08006' },
      { code: '57P01' },
      { code: '57014' },
      { code: '53300' },
      { code: 'PROTOCOL_CONNECTION_LOST', fatal: true },
      { errno: 2013 },
      { errno: 1969 },
      { errno: 1040 },
      { nativeError: { code: 'ECONNREFUSED' } },
    ];
    for (const error of unreachable) {
      const mapped = mapDatabaseError(error);
      expect(mapped, JSON.stringify(error)).toBeInstanceOf(DatabaseUnavailableError);
      expect(mapped!.status).toBe(503);
      expect(Number(mapped!.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(errorToResult(error)).toMatchObject({ status: 503, json: { detail: expect.stringMatching(/database/i) } });
    }
  });
});

describe('error codes', () => {
  const errors = [
    new HttpError(418, 'Passed through'),
    new BadRequestError(),
    new UnauthorizedError(),
    new ForbiddenError(),
    new NotFoundError(),
    new ConflictError(),
    new DuplicateValueError(),
    new PayloadTooLargeError(),
    new UriTooLongError(),
    new UnsupportedMediaTypeError(),
    ValidationError.of(['body'], 'bad'),
    new RateLimitError(),
    new ServiceUnavailableError(),
    new DatabaseUnavailableError(),
    new ExportFormatError('x'),
  ];

  it('gives every HTTP error class its own code, answering the status the catalogue lists', () => {
    const codes = errors.map((error) => error.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const error of errors.slice(1)) expect(error.status, error.code).toBe(ERROR_CODES[error.code]);
  });

  it('gives configuration errors their codes too', () => {
    expect(new ConfigurationError('x').code).toBe('configuration_error');
    expect(new MissingFulltextIndexError('Item', 'items', 'name').code).toBe('missing_fulltext_index');
  });

  it('keeps the code off the wire', () => {
    for (const error of errors) expect(Object.keys(errorToResult(error).json as object)).toEqual(['detail']);
  });
});
