import type { JsonSchema } from './json-schema';

/** The JSON schema of every error body: `{"detail": ...}`. */
export const ERROR_SCHEMA: JsonSchema = { type: 'object', properties: { detail: {} }, required: ['detail'] };

/** The JSON schema of a validation failure (422): `{"detail": [{loc, msg, type}]}`. */
export const VALIDATION_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { type: ['string', 'integer'] } },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
      },
    },
  },
};
