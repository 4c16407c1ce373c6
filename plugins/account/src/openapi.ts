import {
  ERROR_SCHEMA,
  VALIDATION_ERROR_SCHEMA,
  type JsonSchema,
  type RouteDescriptor,
  type RouteDoc,
} from '@crudsmith/core';

// The builders of the account routes' OpenAPI information (an app publishes it, for
// example in every version's document through the versioning plugin's `docs.unversioned`),
// in core's RouteDoc shape: bodies and responses with their `detail` errors. The routes'
// own docs are built from them (`account-docs.ts`, and in the feature folders), their
// security in `security-docs.ts`.

/** The parts of a RouteDoc a route adds beside its operationId, summary and tags. */
export type RouteDocPart = Omit<RouteDoc, 'operationId' | 'summary' | 'tags'>;
type Responses = NonNullable<RouteDoc['responses']>;

export const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds until the next attempt is allowed', schema: { type: 'integer' } },
};
export const MESSAGE: JsonSchema = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
};

/** An error answer: the `{detail}` body, with the details this route gives as examples. */
export function error(description: string, ...details: string[]): Responses[string] {
  return {
    description,
    schema: details.length > 0 ? { ...ERROR_SCHEMA, examples: details.map((detail) => ({ detail })) } : ERROR_SCHEMA,
  };
}

export const validation = (what: string): Responses[string] => ({
  description: `Validation error: ${what}`,
  schema: VALIDATION_ERROR_SCHEMA,
});
export const ok = (
  description: string,
  schema: JsonSchema,
  headers?: Record<string, Record<string, unknown>>,
): Responses[string] => ({ description, schema, ...(headers ? { headers } : {}) });
export const object = (
  properties: Record<string, JsonSchema>,
  required: string[],
  extra: JsonSchema = {},
): JsonSchema => ({ type: 'object', properties, required, ...extra });
export const text = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });

/** The challenge object a sign-in answers for an account with two-factor (or one that must enroll). */
export const CHALLENGE_ANSWER: JsonSchema = object(
  {
    mfa_required: { const: true },
    challenge: text({ description: 'Pass it to /mfa/verify with a code; it dies after 5 wrong codes' }),
    expires_in: { type: 'integer', description: 'Seconds the challenge lives' },
    setup: {
      const: true,
      description: 'Present when the account must enroll first: /mfa/challenge answers its secret',
    },
  },
  ['mfa_required', 'challenge', 'expires_in'],
);

/** Adds each route's part of the docs (by its operation) to the doc `route()` started. */
export function withAccountDocs(routes: RouteDescriptor[], docs: Record<string, RouteDocPart>): RouteDescriptor[] {
  return routes.map((r) => ({ ...r, doc: { ...r.doc!, ...docs[r.operation.replace(/^account_/, '')] } }));
}
