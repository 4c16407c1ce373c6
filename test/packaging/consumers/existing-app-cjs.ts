// An app that had its own knex migrations before crudsmith, compiled by the packaging test
// with plain tsc, "module": "commonjs" and no moduleResolution (TypeScript's node10), and
// run by plain node. `MIGRATE_ONLY=1` is the app as it was: its own migrator, nothing else.
// Otherwise every plugin over it: the plugins' tables first, then the app's own migrator
// (its users reference the rate-limit plugin's tiers), then start.
import 'reflect-metadata';
import Koa from 'koa';
import knex from 'knex';
import { Model } from 'objection';
import { IsOptional, IsString } from 'class-validator';
import { bootstrap, Crud, createRegistry } from '@crudsmith/core';
import { healthRoutes } from '@crudsmith/core/server';
// The old name of @crudsmith/core/auth, as an app written before the rename imports it.
import { HashPool } from '@crudsmith/core/session';
import { mountRoutes } from '@crudsmith/koa';
import { account } from '@crudsmith/account';
import { rateLimit } from '@crudsmith/rate-limit';
import { admin } from '@crudsmith/admin';
import { versioning } from '@crudsmith/versioning';

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
      tier_id: { type: ['integer', 'null'] },
    },
  };
}

class ItemCreate {
  @IsString() name!: string;
}
class ItemUpdate {
  @IsOptional() @IsString() name?: string;
}

@Crud({ path: '/items', createSchema: ItemCreate, updateSchema: ItemUpdate })
class Item extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 100 } },
  };
}

async function main(): Promise<void> {
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: 'app.sqlite3' },
    useNullAsDefault: true,
    migrations: { directory: './migrations' },
  });
  if (process.env.MIGRATE_ONLY) {
    await db.migrate.latest();
    await db.destroy();
    return;
  }
  // One pool of bcrypt workers for the account plugin and the admin.
  const hashPool = new HashPool();
  const auth = account({
    knex: db,
    hashPool,
    userModel: User,
    secretKey: 'an existing app secret long enough to sign tokens',
    path: '/auth',
    bearer: true,
    password: { bcryptRounds: 4 },
  });
  const limits = rateLimit({ knex: db, paths: ['/api'], defaultLimit: 50 });
  const panel = admin({
    knex: db,
    hashPool,
    mountPath: '/admin',
    secretKey: 'an existing app admin secret, long enough',
    models: {
      items: {
        model: Item,
        allowedActions: ['view', 'create', 'update'],
        createSchema: ItemCreate,
        updateSchema: ItemUpdate,
      },
    },
  });
  const versions = versioning({
    prefix: '/api',
    versions: [{ label: 'v1', routers: [...createRegistry([Item]).compile({ session: db })] }],
  });
  const app = bootstrap({
    routers: [healthRoutes()],
    plugins: [versions, limits, auth, panel],
    principal: auth.principal,
  });
  await app.migrate(db);
  await db.migrate.latest();
  await app.start(db);
  const koa = new Koa();
  mountRoutes(koa, app.routes, { fallbacks: app.fallbacks });
  const port = Number(process.env.PORT ?? 3000);
  koa.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
