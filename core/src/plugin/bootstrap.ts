import type { Knex } from 'knex';
import { migrationSource, type MigrationSet } from '../data/migrations';
import type { Dependency } from '../http/neutral';
import { errorToResult, type ErrorLogger } from '../http/render-error';
import type { RouteDescriptor } from '../http/route';
import { assertNoRouteClash, orderBySpecificity } from '../http/route-order';
import type { CrudRouter } from '../crud/endpoint-creator';
import type { Fallback, Plugin } from './plugin';
import { setPrincipalResolver, type Principal } from './principal';

/** What an app is made of. */
export interface BootstrapOptions {
  /** CRUD routers and plain route lists. */
  routers?: (CrudRouter | RouteDescriptor[])[];
  plugins?: Plugin[];
  /** How the caller is identified, for every plugin that needs to know. */
  principal?: Dependency<Principal | null>;
  /** Every migration set, in the order they must run (plugins' and the app's). */
  migrations?: MigrationSet[];
  logger?: ErrorLogger;
}

/** A wired app: the routes and fallbacks to hand to an adapter, and its lifecycle. */
export interface App {
  routes: RouteDescriptor[];
  fallbacks: Fallback[];
  /** Runs the migrations, then each plugin's init. */
  start(knex: Knex): Promise<void>;
  /** Each plugin's close, in reverse order. */
  close(): Promise<void>;
}

/**
 * Wires routers and plugins into one framework-neutral app: collects every route, lets
 * plugins transform the list, wraps each route with the plugins' hooks, orders the
 * routes and rejects clashes.
 */
export function bootstrap(options: BootstrapOptions): App {
  const plugins = options.plugins ?? [];
  let routes: RouteDescriptor[] = [
    ...(options.routers ?? []).flatMap((r) => (Array.isArray(r) ? r : r.routes)),
    ...plugins.flatMap((p) => p.routes ?? []),
  ];
  for (const plugin of plugins) if (plugin.transformRoutes) routes = plugin.transformRoutes(routes);
  routes = orderBySpecificity(routes.map((route) => withHooks(route, { plugins, options })));
  assertNoRouteClash(routes);
  return {
    routes,
    fallbacks: plugins.flatMap((p) => (p.fallback ? [p.fallback] : [])),
    async start(knex) {
      if (options.migrations?.length) await knex.migrate.latest({ migrationSource: migrationSource(...options.migrations) });
      for (const plugin of plugins) await plugin.init?.();
    },
    async close() {
      for (const plugin of [...plugins].reverse()) await plugin.close?.();
    },
  };
}

/**
 * One route with the plugins' hooks around it: before hooks (which may answer early),
 * then the route's dependencies and handler; every error is rendered here so after
 * hooks see errors too (a deprecation header belongs on a 404 as well).
 */
function withHooks(route: RouteDescriptor, ctx: { plugins: Plugin[]; options: BootstrapOptions }): RouteDescriptor {
  const befores = ctx.plugins.flatMap((p) => (p.hooks?.before ? [p.hooks.before] : []));
  const afters = ctx.plugins.flatMap((p) => (p.hooks?.after ? [p.hooks.after] : []));
  const onErrors = ctx.plugins.flatMap((p) => (p.hooks?.onError ? [p.hooks.onError] : []));
  const { principal, logger } = ctx.options;
  return {
    ...route,
    dependencies: [],
    async handler(req) {
      if (principal) setPrincipalResolver(req, principal);
      let result;
      try {
        for (const before of befores) {
          result = (await before(req, route)) ?? undefined;
          if (result) break;
        }
        if (!result) {
          for (const dependency of route.dependencies) await req.resolve(dependency);
          result = await route.handler(req);
        }
      } catch (error) {
        for (const onError of onErrors) await onError(req, route, error);
        result = errorToResult(error, logger);
      }
      for (const after of afters) result = (await after(req, route, result)) ?? result;
      return result;
    },
  };
}
