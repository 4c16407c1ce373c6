// An ES module consumer on Express 5, compiled by the packaging test with
// moduleResolution "bundler" and run by plain node: generated CRUD routes served in two
// API versions (v1 deprecated), and rate limits counted in memory on v2.
import 'reflect-metadata';
import express from 'express';
import knex from 'knex';
import { Model } from 'objection';
import { IsNumber, IsOptional, IsString } from 'class-validator';
import { bootstrap, crudRouter, type MigrationSet } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/express';
import { rateLimit } from '@crudsmith/rate-limit';
import { versioning } from '@crudsmith/versioning';

class ItemCreate {
  @IsString() name!: string;
  @IsNumber() price!: number;
}

class ItemUpdate {
  @IsOptional() @IsString() name?: string;
  @IsOptional() @IsNumber() price?: number;
}

class Item extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' }, price: { type: 'number' } },
  };
}

const migrations: MigrationSet = {
  name: 'app',
  migrations: {
    '0001_items': {
      async up(db) {
        await db.schema.createTable('items', (t) => {
          t.increments('id');
          t.string('name').notNullable();
          t.float('price').notNullable();
        });
      },
      async down(db) {
        await db.schema.dropTable('items');
      },
    },
  },
};

async function main(): Promise<void> {
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: process.env.DATABASE_FILE ?? 'items.sqlite3' },
    useNullAsDefault: true,
  });
  const items = crudRouter({
    session: db,
    model: Item,
    path: '/items',
    createSchema: ItemCreate,
    updateSchema: ItemUpdate,
    filterConfig: { name: null },
  });
  const app = bootstrap({
    plugins: [
      versioning({
        prefix: '/api',
        versions: [
          {
            label: 'v1',
            routers: [items],
            deprecated: { message: 'v1 is deprecated; use /api/v2', sunset: '2030-01-01' },
          },
          { label: 'v2', routers: [items] },
        ],
      }),
      rateLimit({
        knex: db,
        defaultLimit: Number(process.env.RATE_LIMIT ?? 100),
        defaultPeriod: 3600,
        paths: ['/api/v2/items'],
      }),
    ],
    migrations: [migrations],
  });
  await app.start(db);
  const server = express();
  mountRoutes(server, app);
  const port = Number(process.env.PORT ?? 3000);
  server.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
