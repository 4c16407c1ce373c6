import { Model } from 'objection';
import { IsInt, IsString, MaxLength, MinLength } from 'class-validator';

/** A tag's fields as the admin writes them. */
export class TagWrite {
  @IsString() @MinLength(1) @MaxLength(50) name!: string;
}

/** A tag as a post answers it. */
export class TagRead {
  @IsInt() id!: number;
  @IsString() name!: string;
}

/** A label posts carry (many-to-many through `post_tags`). */
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
