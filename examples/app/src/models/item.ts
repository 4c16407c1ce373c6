import { Model } from 'objection';
import { IsDateString, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { Crud, Filter, SoftDelete } from '@crudsmith/core';
import { ITEM_DESCRIPTION_MAX } from '../text-limits';

// A generic item: every field but id and created_at optional and nullable.

/** POST body. */
export class ItemCreate {
  @IsOptional() @IsString() @MaxLength(100) name?: string | null;
  @IsOptional() @IsString() @MaxLength(ITEM_DESCRIPTION_MAX) description?: string | null;
  @IsOptional() @IsString() @MaxLength(50) category?: string | null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
  @IsOptional() @IsDateString() last_sold?: string | null;
}

/** PATCH body: the same fields. */
export class ItemUpdate extends ItemCreate {}

/** The hard-delete schema has no fields; giving it enables `db_delete`. */
export class ItemDelete {}

/** What reads answer. */
export class ItemRead {
  @IsNumber() id!: number;
  @IsOptional() @IsString() name!: string | null;
  @IsOptional() @IsString() description!: string | null;
  @IsOptional() @IsString() category!: string | null;
  @IsOptional() @IsNumber() price!: number | null;
  @IsOptional() @IsDateString() last_sold!: string | null;
  @IsDateString() created_at!: string;
  @IsOptional() @IsDateString() updated_at!: string | null;
}

const datetime = { type: ['string', 'null'], format: 'date-time' };

@Crud({
  path: '/items',
  tags: ['items'],
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  deleteSchema: ItemDelete,
  selectSchema: ItemRead,
  // A create retried with its Idempotency-Key answers the first answer and writes nothing.
  idempotency: true,
  // POST /items/bulk, PATCH /items/bulk, DELETE /items/bulk and PUT /items/{id}.
  bulk: true,
  // GET /items/export?format=csv|ndjson|json: every matching row, streamed.
  export: true,
})
@SoftDelete({ isDeletedColumn: 'is_deleted', deletedAtColumn: 'deleted_at' })
export class Item extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      name: { type: ['string', 'null'], maxLength: 100 },
      description: { type: ['string', 'null'], maxLength: ITEM_DESCRIPTION_MAX },
      category: { type: ['string', 'null'], maxLength: 50 },
      // decimal(12, 2): a finer price is refused (422) rather than rounded by some engines.
      price: { type: ['number', 'null'], multipleOf: 0.01 },
      last_sold: datetime,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: datetime,
      is_deleted: { type: 'boolean' },
      deleted_at: datetime,
    },
  };

  @Filter({ operators: 'all' }) id!: number;
  @Filter({ operators: 'all' }) name?: string | null;
  @Filter({ operators: 'all' }) category?: string | null;
  @Filter({ operators: 'all' }) price?: number | null;
  @Filter({ operators: 'all' }) last_sold?: Date | null;
  @Filter({ operators: 'all' }) created_at!: Date;
}
