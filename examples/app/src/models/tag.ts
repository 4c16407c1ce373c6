import { Model } from 'objection';

/** A tag posts carry (many-to-many through `post_tags`); the admin edits both sides' links on a post. */
export class Tag extends Model {
  static override tableName = 'tags';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      name: { type: 'string', maxLength: 50 },
    },
  };
}
