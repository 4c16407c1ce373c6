import { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from '@crudsmith/core';

/** The error body schemas every document lists under components. */
export const ERROR_COMPONENTS = { Error: ERROR_SCHEMA, ValidationError: VALIDATION_ERROR_SCHEMA };

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported Content-Encoding',
  422: 'Validation error',
  429: 'Too many requests',
};

/** The OpenAPI response object of an error status, its body schema by reference. */
export function errorResponse(status: number): Record<string, unknown> {
  const schema = { $ref: status === 422 ? '#/components/schemas/ValidationError' : '#/components/schemas/Error' };
  const response: Record<string, unknown> = {
    description: DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema } },
  };
  if (status === 429) {
    response.headers = {
      'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer' } },
    };
  }
  return response;
}
