import 'reflect-metadata';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import type { Knex } from 'knex';
import { Model } from 'objection';
import { IsDateString, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { bootstrap, Crud, createRegistry, Filter, SoftDelete } from '@crudsmith/core';
import { mountRoutes as mountExpress } from '@crudsmith/express';
import { mountRoutes as mountFastify } from '@crudsmith/fastify';
import { mountRoutes as mountKoa } from '@crudsmith/koa';
import { CURSOR_KEY, listen, quietOnDisconnect } from './crudsmith-apps';
import type { Framework, Listening } from './protocol';

// crudsmith's side of the "as taught" setup: the item declared the way the README's quick
// start teaches (an objection model with @Crud, @SoftDelete and @Filter, class-validator
// schemas for the bodies and for what reads answer), compiled by a registry, wrapped by
// bootstrap and mounted by each adapter, rather than crudRouter's options passed by hand.

class TaughtCreate {
  @IsOptional() @IsString() @MaxLength(100) name?: string | null;
  @IsOptional() @IsString() description?: string | null;
  @IsOptional() @IsString() @MaxLength(50) category?: string | null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
  @IsOptional() @IsDateString() last_sold?: string | null;
}

class TaughtUpdate {
  @IsOptional() @IsString() @MaxLength(100) name?: string | null;
  @IsOptional() @IsString() description?: string | null;
  @IsOptional() @IsString() @MaxLength(50) category?: string | null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) price?: number | null;
  @IsOptional() @IsDateString() last_sold?: string | null;
}

class TaughtRead {
  @IsNumber() id!: number;
  @IsOptional() @IsString() name!: string | null;
  @IsOptional() @IsString() description!: string | null;
  @IsOptional() @IsString() category!: string | null;
  @IsOptional() @IsNumber() price!: number | null;
  @IsOptional() @IsDateString() last_sold!: string | null;
  @IsDateString() created_at!: string;
  @IsOptional() @IsDateString() updated_at!: string | null;
}

const ts = { type: ['string', 'null'], format: 'date-time' };

@Crud({
  path: '/items',
  createSchema: TaughtCreate,
  updateSchema: TaughtUpdate,
  selectSchema: TaughtRead,
  cursorKey: CURSOR_KEY,
  bulk: true,
  export: true,
})
@SoftDelete()
class TaughtItem extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: ['string', 'null'], maxLength: 100 },
      description: { type: ['string', 'null'] },
      category: { type: ['string', 'null'], maxLength: 50 },
      price: { type: ['number', 'null'] },
      last_sold: ts,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: ts,
      is_deleted: { type: 'boolean' },
      deleted_at: ts,
    },
  };
  id!: number;
  @Filter() category?: string | null;
  @Filter({ operators: ['gte', 'lte'] }) price?: number | null;
  @Filter({ operators: ['startswith'] }) name?: string | null;
}

/** The taught item's app: its registry compiled and wrapped by bootstrap, as the quick start does. */
export const taughtApp = (knex: Knex) =>
  bootstrap({ routers: createRegistry([TaughtItem]).compile({ session: knex }) });

/** Starts the framework's app serving the taught item on 127.0.0.1 (a port the system picks). */
export async function startTaught(framework: Framework, knex: Knex): Promise<Listening> {
  const app = taughtApp(knex);
  const options = { fallbacks: app.fallbacks };
  switch (framework) {
    case 'koa': {
      const koa = quietOnDisconnect(new Koa());
      mountKoa(koa, app.routes, options);
      return listen(koa.listen(0, '127.0.0.1'));
    }
    case 'express': {
      const server = express();
      mountExpress(server, app.routes, options);
      return listen(server.listen(0, '127.0.0.1'));
    }
    case 'fastify': {
      const server = Fastify();
      mountFastify(server, app.routes, options);
      await server.listen({ port: 0, host: '127.0.0.1' });
      return { server: server.server, close: () => server.close() };
    }
  }
}
