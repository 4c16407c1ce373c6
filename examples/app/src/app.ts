import Koa from 'koa';
import type { Knex } from 'knex';
import { bootstrap, createRegistry, type App, type RouteDescriptor } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { appMigrations } from './migrations/app';
import { Item } from './models/item';

/** Prefixes a router's routes (the versioning plugin will take this over). */
function under(prefix: string, routes: RouteDescriptor[]): RouteDescriptor[] {
  return routes.map((route) => ({ ...route, path: `${prefix}${route.path}` }));
}

/** The example application, framework-neutral: routes, plugins and migrations. */
export function buildApp(knex: Knex): App {
  const v1 = createRegistry([Item]).compile({ session: knex });
  return bootstrap({
    routers: v1.map((router) => under('/api/v1', router.routes)),
    migrations: [appMigrations],
  });
}

/** The Koa application serving a built app. */
export function createKoaApp(app: App, options: { trustedProxies?: string[] } = {}): Koa {
  const koa = new Koa();
  mountRoutes(koa, app.routes, { trustedProxies: options.trustedProxies });
  koa.use(async (ctx) => {
    // Anything no route answered: the same JSON error shape as every other error.
    ctx.status = 404;
    ctx.body = { detail: 'Not Found' };
  });
  return koa;
}
