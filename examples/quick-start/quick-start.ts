import 'reflect-metadata';
import Koa from 'koa';
import knex from 'knex';
import { Model } from 'objection';
import { IsOptional, IsString } from 'class-validator';
import { Crud, Filter, bootstrap, createRegistry, type MigrationSet } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';

class BookCreate {
  @IsString() title!: string;
  @IsOptional() @IsString() genre?: string;
}

// A PATCH sends only what changes, so every field of the update schema is optional.
class BookUpdate {
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsString() genre?: string;
}

@Crud({ path: '/books', createSchema: BookCreate, updateSchema: BookUpdate })
class Book extends Model {
  static override tableName = 'books';
  // crudsmith reads columns and their types from jsonSchema (never from design:type).
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, title: { type: 'string' }, genre: { type: ['string', 'null'] } },
  };
  @Filter({ operators: ['eq', 'in', 'ilike'] }) genre?: string;
}

// The app's tables, as knex migrations: bootstrap runs them in order, once each.
const migrations: MigrationSet = {
  name: 'app',
  migrations: {
    '0001_books': {
      async up(db) {
        await db.schema.createTable('books', (t) => {
          t.increments('id');
          t.string('title').notNullable();
          t.string('genre').nullable();
        });
      },
      async down(db) {
        await db.schema.dropTable('books');
      },
    },
  },
};

async function main(): Promise<void> {
  const db = knex({ client: 'better-sqlite3', connection: { filename: 'books.sqlite3' }, useNullAsDefault: true });
  const routers = createRegistry([Book]).compile({ session: db }); // misconfiguration throws here
  const app = bootstrap({ routers, migrations: [migrations] });
  await app.start(db); // migrates
  const koa = new Koa();
  mountRoutes(koa, app, { prefix: '/api' });
  const port = Number(process.env.PORT ?? 3000);
  koa.listen(port, () => console.log(`Listening on http://localhost:${port}/api/books`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
