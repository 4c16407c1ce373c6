// An ES module consumer on Fastify 5, compiled by the packaging test with module "node16"
// (so TypeScript resolves our CommonJS packages from ESM) and run by plain node: the account plugin (register, sign in with a session or a bearer token,
// /auth/me) over the app's own users table, and a CRUD router built without decorators
// whose create needs a signed-in user.
import 'reflect-metadata';
import { fastify } from 'fastify';
import knex from 'knex';
import { Model } from 'objection';
import { IsOptional, IsString } from 'class-validator';
import { bootstrap, crudRouter, type MigrationSet } from '@crudsmith/core';
import { frameworkErrors, mountRoutes } from '@crudsmith/fastify';
import { account } from '@crudsmith/account';

class User extends Model {
  static override tableName = 'users';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      username: { type: 'string' },
      email: { type: 'string' },
      hashed_password: { type: ['string', 'null'] },
      token_version: { type: 'integer' },
    },
  };
}

class NoteCreate {
  @IsString() text!: string;
}

class NoteUpdate {
  @IsOptional() @IsString() text?: string;
}

class Note extends Model {
  static override tableName = 'notes';
  static override jsonSchema = { type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } } };
}

const migrations: MigrationSet = {
  name: 'app',
  migrations: {
    '0001_users_and_notes': {
      async up(db) {
        await db.schema.createTable('users', (t) => {
          t.increments('id');
          t.string('username', 50).notNullable().unique();
          t.string('email', 100).notNullable().unique();
          t.string('hashed_password').nullable();
          t.integer('token_version').notNullable().defaultTo(0);
        });
        await db.schema.createTable('notes', (t) => {
          t.increments('id');
          t.text('text').notNullable();
        });
      },
      async down(db) {
        await db.schema.dropTable('notes');
        await db.schema.dropTable('users');
      },
    },
  },
};

async function main(): Promise<void> {
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: process.env.DATABASE_FILE ?? 'notes.sqlite3' },
    useNullAsDefault: true,
  });
  const auth = account({
    knex: db,
    userModel: User,
    secretKey: 'a consumer secret that is long enough to sign tokens',
    path: '/auth',
    bearer: true,
    password: { bcryptRounds: 4 },
  });
  const notes = crudRouter({
    session: db,
    model: Note,
    path: '/notes',
    createSchema: NoteCreate,
    updateSchema: NoteUpdate,
    createDeps: [auth.currentUser()],
  });
  const app = bootstrap({ routers: [notes], plugins: [auth], principal: auth.principal, migrations: [migrations] });
  await app.start(db);
  const server = fastify({ frameworkErrors });
  mountRoutes(server, app);
  const port = Number(process.env.PORT ?? 3000);
  await server.listen({ port, host: '127.0.0.1' });
  console.log(`listening on ${port}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
