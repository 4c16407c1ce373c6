import {
  ERROR_SCHEMA,
  VALIDATION_ERROR_SCHEMA,
  schemaToJsonSchema,
  type JsonSchema,
  type RouteDescriptor,
  type RouteDoc,
} from '@crudsmith/core';
import { UserCreate, UserCreateV2, UserUpdate } from '../models/user';
import { UserRolesSet } from './user-roles';

// The OpenAPI information of the users routes of each version (bodies from the
// class-validator classes, the UserRead / UserReadV2 shapes, the errors each answers),
// added to the routes the users files build, by operation name.

/** UserRead, as `toUserRead` answers it. */
export const USER_READ: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'username', 'email', 'profile_image_url', 'tier_id'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    profile_image_url: { type: 'string' },
    tier_id: { type: ['integer', 'null'] },
  },
  additionalProperties: false,
};

const USER_READ_V2: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'username', 'email', 'avatar_url', 'subscription_tier', 'created_at', 'is_verified'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    avatar_url: { type: 'string' },
    subscription_tier: { type: ['string', 'null'], description: "The tier's name" },
    created_at: { type: 'string', format: 'date-time' },
    is_verified: { type: 'boolean' },
  },
  additionalProperties: false,
};

const MESSAGE: JsonSchema = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const PAGE = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
  {
    name: 'items_per_page',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
  },
];
const USER_ID = [{ name: 'user_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];

type Responses = NonNullable<RouteDoc['responses']>;
/** Error responses with the `{detail}` (422: validation) body schemas. */
export const error = (...statuses: number[]): Responses =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      status === 422
        ? { description: 'Validation error', schema: VALIDATION_ERROR_SCHEMA }
        : { description: 'Error', schema: ERROR_SCHEMA },
    ]),
  );
const ok = (status: number, description: string, schema: JsonSchema): Responses => ({
  [String(status)]: { description, schema },
});

const ROLES: JsonSchema = { type: 'array', items: { type: 'string' } };
const USER_ROLES: JsonSchema = {
  type: 'object',
  required: ['id', 'roles'],
  properties: { id: { type: 'integer' }, roles: ROLES },
  additionalProperties: false,
};
// v1's /me answers the caller's roles beside the user.
const withRoles = (user: JsonSchema): JsonSchema => ({
  ...user,
  required: [...(user.required as string[]), 'roles'],
  properties: { ...(user.properties as Record<string, JsonSchema>), roles: ROLES },
});

/** Adds each users route's body, parameters and responses to its doc (`version` picks the shapes). */
export function withUserDocs(version: 'v1' | 'v2', routes: RouteDescriptor[]): RouteDescriptor[] {
  const user = version === 'v1' ? USER_READ : USER_READ_V2;
  const list: JsonSchema =
    version === 'v1'
      ? { type: 'array', items: user }
      : {
          type: 'object',
          required: ['data', 'total_count', 'has_more', 'page', 'items_per_page'],
          properties: {
            data: { type: 'array', items: user },
            total_count: { type: 'integer' },
            has_more: { type: 'boolean' },
            page: { type: 'integer' },
            items_per_page: { type: 'integer' },
          },
        };
  const docs: Record<string, Partial<RouteDoc>> = {
    create: {
      requestBody: schemaToJsonSchema(version === 'v1' ? UserCreate : UserCreateV2),
      responses: { ...ok(201, 'The new user', user), ...error(409, 422, 429, 503) },
    },
    list: {
      parameters: PAGE,
      responses: {
        ...ok(200, version === 'v1' ? 'A page of users' : 'A page of users in the paginated envelope', list),
        ...error(422),
      },
    },
    me: { responses: ok(200, 'The signed-in user', version === 'v1' ? withRoles(user) : user) },
    roles: {
      parameters: USER_ID,
      requestBody: schemaToJsonSchema(UserRolesSet),
      responses: { ...ok(200, 'The roles the user now holds', USER_ROLES), ...error(404, 422) },
    },
    read: { parameters: USER_ID, responses: { ...ok(200, 'The user', user), ...error(404) } },
    update: {
      parameters: USER_ID,
      requestBody: schemaToJsonSchema(UserUpdate),
      responses: { ...ok(200, 'The updated user', user), ...error(404, 409, 422) },
    },
    delete: {
      parameters: USER_ID,
      responses: { ...ok(200, 'Soft-deleted and signed out everywhere', MESSAGE), ...error(404) },
    },
    delete_permanent: {
      parameters: USER_ID,
      responses: { ...ok(200, 'Removed from the database', MESSAGE), ...error(404) },
    },
    avatar: {
      parameters: USER_ID,
      responses: { ...ok(200, 'The user with the new avatar URL', user), ...error(400, 404, 409, 413, 422, 429) },
    },
  };
  return routes.map((route) => {
    const name = route.operation.replace(/^users(_v2)?_/, '');
    return docs[name] ? { ...route, doc: { ...route.doc!, ...docs[name] } } : route;
  });
}
