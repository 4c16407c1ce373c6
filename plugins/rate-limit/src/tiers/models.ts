import { Model } from 'objection';

const INT = { type: 'integer', minimum: 1, maximum: 2147483647 };

/** A tier: a named set of per-path limits that users are assigned to. */
export class Tier extends Model {
  static override tableName = 'tiers';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: INT,
      name: { type: 'string', maxLength: 100 },
      description: { type: ['string', 'null'] },
      created_at: { type: 'string', format: 'date-time' },
    },
  };

  id!: number;
  name!: string;
  description!: string | null;
  // No $beforeInsert for created_at: the repository stamps it, and a hook would move the
  // model's writes off the direct knex path.
  created_at!: Date;
}

/** One tier's limit on one sanitized path: `limit` requests per `period` seconds. */
export class RateLimit extends Model {
  static override tableName = 'rate_limits';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: INT,
      tier_id: INT,
      name: { type: 'string', maxLength: 100 },
      path: { type: 'string', maxLength: 255 },
      limit: { type: 'integer', minimum: 0, maximum: 2147483647 },
      period: { type: 'integer', minimum: 1, maximum: 2147483647 },
    },
  };

  id!: number;
  tier_id!: number;
  name!: string;
  path!: string;
  limit!: number;
  period!: number;
}
