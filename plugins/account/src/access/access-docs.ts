import type { JsonSchema } from '@crudsmith/core';
import { error, object, ok, text, validation, type RouteDocPart } from '../openapi';

const strings: JsonSchema = { type: 'array', items: text() };
const role = object({ name: text(), permissions: strings }, ['name', 'permissions']);
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as JsonSchema;
const key = object(
  {
    id: { type: 'integer' },
    name: text(),
    prefix: text({ description: 'The key start, `csk_<lookup>`, to tell keys apart' }),
    scopes: strings,
    tier_id: { type: ['integer', 'null'], description: "The key's own rate-limit tier; null: its owner's" },
    created_at: text({ format: 'date-time' }),
    expires_at: nullableTime,
    last_used_at: nullableTime,
  },
  ['id', 'name', 'prefix', 'scopes', 'tier_id', 'created_at', 'expires_at', 'last_used_at'],
);
const unauthenticated = error('No valid credential', 'Not authenticated');
const superuserOnly = error('Not a superuser signed in in person (an API key is refused)', 'Superuser required');
const personOnly = error(
  'An API key may not manage keys, or a session request lacks its CSRF header',
  'This route does not accept an API key',
);

/**
 * The docs of the role and API key routes, by operation. `read` and `write` are the
 * security of the account's safe and unsafe routes (`write` adds the CSRF header).
 */
export function accessDocs(read: RouteDocPart, write: RouteDocPart): Record<string, RouteDocPart> {
  const docs: Record<string, RouteDocPart> = {
    roles_list: {
      ...read,
      responses: {
        '200': ok('Every role with its permissions', { type: 'array', items: role }),
        '401': unauthenticated,
        '403': superuserOnly,
      },
    },
    roles_create: {
      ...write,
      requestBody: object({ name: text({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), permissions: strings }, ['name']),
      responses: {
        '201': ok('The role', role),
        '401': unauthenticated,
        '403': superuserOnly,
        '409': error('A role of this name exists'),
        '422': validation('a bad name or permission'),
      },
    },
    user_roles_set: {
      ...write,
      parameters: [{ name: 'id', in: 'path', required: true, schema: text() }],
      requestBody: object({ roles: strings }, ['roles']),
      responses: {
        '200': ok("The user's roles now", object({ id: {}, roles: strings }, ['id', 'roles'])),
        '401': unauthenticated,
        '403': superuserOnly,
        '404': error('No such user', 'User not found'),
        '422': validation('an unknown role'),
      },
    },
    api_key_create: {
      ...write,
      requestBody: object(
        {
          name: text({ maxLength: 100 }),
          scopes: { ...strings, description: 'Permissions the key carries; each one the owner holds' },
          expires_in_days: { type: 'integer', minimum: 1, maximum: 3650 },
          tier_id: {
            type: ['integer', 'null'],
            minimum: 1,
            description: "Superuser only: the key's own rate-limit tier (default: its owner's)",
          },
        },
        ['name'],
        { additionalProperties: false },
      ),
      responses: {
        '201': ok(
          'The key: `key` is its only copy, shown once',
          object({ ...(key.properties as Record<string, JsonSchema>), key: text() }, [
            ...(key.required as string[]),
            'key',
          ]),
        ),
        '401': unauthenticated,
        '403': personOnly,
        '422': validation(
          'a missing name, a scope the owner does not hold, a bad expiry, or a tier set by a non-superuser',
        ),
      },
    },
    api_key_list: {
      ...read,
      responses: {
        '200': ok('Your live keys, newest first (never a secret)', { type: 'array', items: key }),
        '401': unauthenticated,
        '403': personOnly,
      },
    },
    api_key_revoke: {
      ...write,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: {
        '204': { description: 'Revoked: the key authenticates nothing from now on' },
        '401': unauthenticated,
        '403': personOnly,
        '404': error('No such live key of yours', 'API key not found'),
      },
    },
  };
  return docs;
}
