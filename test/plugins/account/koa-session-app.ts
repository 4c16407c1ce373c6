import Koa from 'koa';
import { createSession } from 'koa-session';
import { bootstrap, type App, type RouteDescriptor } from '@crudsmith/core';
import type { SessionStore } from '@crudsmith/core/auth';
import { koaSessionOptions } from '@crudsmith/koa';
import { account, type AccountPlugin } from '@crudsmith/account';
import type { TestDatabase } from '../../fixtures/db';
import { PASSWORD, SECRET, User, userMigrations } from './fixture';

/**
 * The account plugin on `db` with its sessions in `store` and the user kim, and a Koa app
 * whose koa-session carries those sessions, with the app's own middleware `after` run once
 * the routes answered (where a store failure escapes the routes' error rendering), and the
 * app's `routes` beside the plugin's. The caller mounts the routes.
 */
export async function koaSessionApp(
  db: TestDatabase,
  options: {
    store: SessionStore;
    routes?: (auth: AccountPlugin) => RouteDescriptor[];
    after: (ctx: Koa.Context) => void | Promise<void>;
  },
): Promise<{ auth: AccountPlugin; app: App; koa: Koa }> {
  const auth = account({
    knex: db.knex,
    userModel: User,
    secretKey: SECRET,
    path: '/auth',
    password: { bcryptRounds: 4 },
    session: { store: options.store },
  });
  const app = bootstrap({
    routers: options.routes ? [options.routes(auth)] : [],
    plugins: [auth],
    migrations: [userMigrations],
  });
  await app.start(db.knex);
  await auth.createUser({ username: 'kim', email: 'kim@example.com', password: PASSWORD });
  const koa = new Koa();
  koa.use(createSession(koaSessionOptions(auth.sessionManager!), koa));
  koa.use(async (ctx, next) => {
    await next();
    await options.after(ctx);
  });
  return { auth, app, koa };
}
