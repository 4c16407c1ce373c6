import { Model } from 'objection';
import { IsDateString, IsInt, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { POST_TEXT_MAX } from '../text-limits';

/** `POST /api/vN/posts/` body: `author_id` is an auto field (the signed-in user), never sent. */
export class PostCreate {
  @IsString() @MinLength(1) @MaxLength(100) title!: string;
  @IsString() @MinLength(1) @MaxLength(POST_TEXT_MAX) text!: string;
}

/** `PATCH /api/v1/posts/{id}` body. */
export class PostUpdate {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) title?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(POST_TEXT_MAX) text?: string;
}

/** What the posts routes answer. */
export class PostRead {
  @IsInt() id!: number;
  @IsString() title!: string;
  @IsString() text!: string;
  @IsInt() author_id!: number;
  @IsDateString() created_at!: string;
}

/** A user's post (title, text, author_id, created_at). */
export class Post extends Model {
  static override tableName = 'posts';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      title: { type: 'string', maxLength: 100 },
      text: { type: 'string', maxLength: POST_TEXT_MAX },
      author_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      created_at: { type: 'string', format: 'date-time' },
    },
  };
}
