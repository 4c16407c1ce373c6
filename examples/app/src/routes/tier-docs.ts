import type { JsonSchema, RouteDescriptor, RouteDoc } from '@crudsmith/core';
import { error, USER_READ } from './user-docs';

// The OpenAPI information of the tier and rate-limit routes (/api/v1), added by operation
// name: the bodies the TierService checks, the answers `toTierRead`/`toRateLimitRead` give.

const TIER: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'created_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
};
const RATE_LIMIT: JsonSchema = {
  type: 'object',
  required: ['id', 'tier_id', 'name', 'path', 'limit', 'period'],
  properties: {
    id: { type: 'integer' },
    tier_id: { type: 'integer' },
    name: { type: 'string' },
    path: { type: 'string', description: 'Stored sanitized: no leading or trailing slash' },
    limit: { type: 'integer', minimum: 0 },
    period: { type: 'integer', minimum: 1, description: 'Seconds' },
  },
  additionalProperties: false,
};
const TIER_BODY: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: ['string', 'null'] } },
};
const RATE_LIMIT_BODY: JsonSchema = {
  type: 'object',
  required: ['name', 'path', 'limit', 'period'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    path: { type: 'string', minLength: 1, maxLength: 255 },
    limit: { type: 'integer', minimum: 0 },
    period: { type: 'integer', minimum: 1 },
  },
};
const TIER_ID_BODY: JsonSchema = {
  type: 'object',
  required: ['tier_id'],
  properties: { tier_id: { type: ['integer', 'null'], minimum: 1, description: 'null takes the tier away' } },
};
const TIER_NAME = [{ name: 'tier_name', in: 'path', required: true, schema: { type: 'string' } }];
const USER_ID = [{ name: 'user_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];

const DOCS: Record<string, Partial<RouteDoc>> = {
  tiers_create: {
    requestBody: TIER_BODY,
    responses: { '201': { description: 'The new tier', schema: TIER }, ...error(409, 422) },
  },
  tiers_list: { responses: { '200': { description: 'Every tier', schema: { type: 'array', items: TIER } } } },
  tiers_read: { parameters: TIER_NAME, responses: { '200': { description: 'The tier', schema: TIER }, ...error(404) } },
  rate_limits_create: {
    parameters: TIER_NAME,
    requestBody: RATE_LIMIT_BODY,
    responses: { '201': { description: 'The new limit', schema: RATE_LIMIT }, ...error(404, 409, 422) },
  },
  rate_limits_list: {
    parameters: TIER_NAME,
    responses: {
      '200': { description: "The tier's limits", schema: { type: 'array', items: RATE_LIMIT } },
      ...error(404),
    },
  },
  users_update_tier: {
    parameters: USER_ID,
    requestBody: TIER_ID_BODY,
    responses: { '200': { description: 'The user with the new tier', schema: USER_READ }, ...error(404, 422) },
  },
};

/** Adds each tier route's body, parameters and responses to its doc. */
export function withTierDocs(routes: RouteDescriptor[]): RouteDescriptor[] {
  return routes.map((route) =>
    DOCS[route.operation] ? { ...route, doc: { ...route.doc!, ...DOCS[route.operation] } } : route,
  );
}
