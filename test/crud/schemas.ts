// Request and answer schemas of the fixture models, as an application would write them.
import { IsDateString, IsInt, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';

/** POST body of an item: every field but id and created_at, optional and nullable. */
export class ItemCreate {
  @IsOptional() @IsString() @MaxLength(100) name?: string | null;
  @IsOptional() @IsString() description?: string | null;
  @IsOptional() @IsString() @MaxLength(50) category?: string | null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
  @IsOptional() @IsDateString() last_sold?: string | null;
}

/** PATCH body of an item. */
export class ItemUpdate extends ItemCreate {}

/** The delete schema has no fields; giving it adds db_delete. */
export class ItemDelete {}

/** What item reads answer: id … created_at and updated_at. */
export class ItemRead {
  @IsInt() id!: number;
  @IsOptional() @IsString() name!: string | null;
  @IsOptional() @IsString() description!: string | null;
  @IsOptional() @IsString() category!: string | null;
  @IsOptional() @IsNumber() price!: number | null;
  @IsOptional() @IsDateString() last_sold!: string | null;
  @IsDateString() created_at!: string;
  @IsOptional() @IsDateString() updated_at!: string | null;
}

/** The fields ItemRead answers, in order. */
export const ITEM_READ_FIELDS = [
  'id',
  'name',
  'description',
  'category',
  'price',
  'last_sold',
  'created_at',
  'updated_at',
];

/** POST body of a book. */
export class BookCreate {
  @IsString() @MaxLength(200) title!: string;
  @IsOptional() @IsInt() author_id?: number | null;
  @IsOptional() @IsInt() pages?: number | null;
}

/** PATCH body of a book. */
export class BookUpdate {
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsInt() author_id?: number | null;
  @IsOptional() @IsInt() pages?: number | null;
}

/** POST and PATCH body of an author. */
export class AuthorWrite {
  @IsOptional() @IsString() name?: string;
  @IsOptional() @IsString() email?: string;
}
