import Koa from 'koa';
import type { Knex } from 'knex';
import { createRegistry, routesOf, type RouteDescriptor } from '@crudsmith/core';
import { mountRoutes } from '@crudsmith/koa';
import { Item } from './models/item';

/** What the example application serves, framework-neutral. */
export function buildRoutes(knex: Knex): { prefix: string; routes: RouteDescriptor[] }[] {
  const v1 = createRegistry([Item]).compile({ session: knex });
  return [{ prefix: '/api/v1', routes: routesOf(...v1) }];
}

/** The Koa application over a migrated database. */
export function createKoaApp(knex: Knex, options: { trustedProxies?: string[] } = {}): Koa {
  const app = new Koa();
  for (const { prefix, routes } of buildRoutes(knex)) mountRoutes(app, routes, { prefix, trustedProxies: options.trustedProxies });
  app.use(async (ctx) => {
    // Anything no route answered: the same JSON error shape as every other error.
    ctx.status = 404;
    ctx.body = { detail: 'Not Found' };
  });
  return app;
}
