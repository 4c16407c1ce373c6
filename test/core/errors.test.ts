import { describe, expect, it, vi } from 'vitest';
import { BadRequestError, DuplicateValueError, NotFoundError, RateLimitError, ValidationError, mapDatabaseError } from '@crudsmith/core';
import { errorToResult } from '@crudsmith/core/adapter';

describe('errorToResult', () => {
  it('renders a known error with its status and detail', () => {
    expect(errorToResult(new NotFoundError())).toEqual({ status: 404, headers: {}, json: { detail: 'Item not found' } });
    expect(errorToResult(new BadRequestError('Conflicting parameters')).status).toBe(400);
  });

  it('renders a 422 with the list of issues', () => {
    const result = errorToResult(ValidationError.of(['query', 'limit'], 'must be at least 1'));
    expect(result.status).toBe(422);
    expect(result.json).toEqual({ detail: [{ loc: ['query', 'limit'], msg: 'must be at least 1', type: 'value_error' }] });
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
  it('maps each engine\'s unique violation to DuplicateValueError', () => {
    expect(mapDatabaseError({ code: '23505' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ errno: 1062, code: 'ER_DUP_ENTRY' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBeInstanceOf(DuplicateValueError);
    expect(mapDatabaseError({ nativeError: { code: '23505' } })).toBeInstanceOf(DuplicateValueError);
  });

  it('leaves errors that are not the client\'s fault alone', () => {
    expect(mapDatabaseError(new Error('connection refused'))).toBeUndefined();
  });
});
