// A model as an existing app declares it for its API: @Crud with auto fields that stamp
// who wrote (and soft-deleted) a row, idempotent creates, @Filter on its columns, and NOT NULL columns with database defaults
// that the create schema leaves optional.
import { Model } from 'objection';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { Crud, Filter, type MigrationSet } from '@crudsmith/core';
import { adminUserOf, type ModelView } from '@crudsmith/admin';

export class OrderCreate {
  @IsString() @MaxLength(40) product!: string;
  @IsOptional() @IsString() @MaxLength(20) status?: string;
  @IsOptional() @IsInt() quantity?: number;
  @IsOptional() @IsString() @MaxLength(200) note?: string | null;
}
export class OrderUpdate {
  @IsOptional() @IsString() @MaxLength(40) product?: string;
  @IsOptional() @IsString() @MaxLength(20) status?: string;
  @IsOptional() @IsInt() quantity?: number;
}

/** Who wrote a row: the admin user on admin requests. */
const writer = (req: Parameters<typeof adminUserOf>[0]) => `admin:${adminUserOf(req)?.username ?? 'nobody'}`;

@Crud({
  createSchema: OrderCreate,
  updateSchema: OrderUpdate,
  createConfig: { autoFields: { created_by: writer } },
  updateConfig: { autoFields: { updated_by: writer } },
  deleteConfig: { autoFields: { deleted_by: writer } },
  idempotency: true,
})
export class Order extends Model {
  static override tableName = 'orders';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      product: { type: 'string', maxLength: 40 },
      status: { type: 'string', maxLength: 20 },
      quantity: { type: 'integer' },
      note: { type: ['string', 'null'], maxLength: 200 },
      created_by: { type: ['string', 'null'], maxLength: 40 },
      updated_by: { type: ['string', 'null'], maxLength: 40 },
      deleted_by: { type: ['string', 'null'], maxLength: 40 },
      is_deleted: { type: 'boolean' },
      created_at: { type: 'string', format: 'date-time' },
    },
  };

  @Filter() status!: string;
  @Filter({ operators: ['gte', 'lte'] }) quantity!: number;
}

export const orderMigrations: MigrationSet = {
  name: 'admin-test-orders',
  migrations: {
    '0001_orders': {
      async up(knex) {
        await knex.schema.createTable('orders', (t) => {
          t.increments('id');
          t.string('product', 40).notNullable();
          t.string('status', 20).notNullable().defaultTo('new');
          t.integer('quantity').notNullable().defaultTo(1);
          t.string('note', 200).nullable();
          t.string('created_by', 40).nullable();
          t.string('updated_by', 40).nullable();
          t.string('deleted_by', 40).nullable();
          t.boolean('is_deleted').notNullable().defaultTo(false);
          t.datetime('created_at', { precision: 3 }).notNullable();
        });
      },
      async down(knex) {
        await knex.schema.dropTable('orders');
      },
    },
  },
};

/** The orders view: every action, the model's schemas. */
export const ordersView: ModelView = {
  model: Order,
  allowedActions: ['view', 'create', 'update', 'delete'],
  createSchema: OrderCreate,
  updateSchema: OrderUpdate,
};
