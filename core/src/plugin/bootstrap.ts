import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { orderMigrationSets, type KnexMigrations, type MigrationSet } from '../migrations';
import { appMigrationSource, CRUDSMITH_MIGRATIONS, runMigrationSets } from '../data/migration-history';
import type { Dependency } from '../http/neutral';
import { errorToResult, requestContext, type ErrorLogger } from '../http/render-error';
import { callHandler } from '../http/run-route';
import type { RouteDescriptor } from '../http/route';
import { assertNoRouteClash, orderBySpecificity } from '../http/route-order';
import type { CrudRouter } from '../crud/endpoint-creator';
import type { Fallback, Plugin, PluginHooks } from './plugin';
import { setPrincipalResolver, type Principal } from '../http/principal';

/** What an app is made of. */
export interface BootstrapOptions {
  /** CRUD routers and plain route lists. */
  routers?: (CrudRouter | RouteDescriptor[])[];
  plugins?: Plugin[];
  /** How the caller is identified, for every plugin that needs to know. */
  principal?: Dependency<Principal | null>;
  /**
   * The app's own migration sets. Plugins' sets are collected from the plugins: they run
   * first, in plugin order, unless a set's `after`/`before` says otherwise.
   */
  migrations?: MigrationSet[];
  /**
   * The table where `migrate` (and `start`) record the sets they run, with its `_lock`
   * table beside it: `crudsmith_migrations` by default, never the app's own knex history.
   */
  migrationTable?: string;
  /** Where errors no route expected are reported, with the request's id (console by default; `requestLog(...).errors` puts them on the request's log line). */
  logger?: ErrorLogger;
  /**
   * At `start`, read each generated list's table indexes from the database catalogue and
   * warn (through `logger.warn`) when a declared filter or `sortable` column has none to
   * serve it, naming the index to add. On by default unless `NODE_ENV` is `production` or
   * `test`; a catalogue that cannot be read is a warning too, never a failed start.
   */
  indexCheck?: boolean;
}

/** A wired app: the routes and fallbacks to hand to an adapter, and its lifecycle. */
export interface App {
  routes: RouteDescriptor[];
  fallbacks: Fallback[];
  /** Every migration set (plugins' and the app's), in the order `start` runs them. */
  migrations: MigrationSet[];
  /**
   * Runs every set not yet recorded, in order, recorded in `migrationTable`
   * (`crudsmith_migrations`). A migration the app's own knex history already records
   * (an install from before this table, or one run through `migrationSource`) is recorded
   * without running again.
   */
  migrate(knex: Knex): Promise<void>;
  /**
   * Every set in one knex migration source, for the app's own migrator: the app's own
   * migrations (`directoryMigrations('./migrations')`) take their place among the sets by
   * `after`/`before` (after the plugins' sets otherwise) and keep their names, so its
   * history still matches. A set's migration `migrate` already ran is recorded, not re-run.
   */
  migrationSource(...own: KnexMigrations[]): Knex.MigrationSource<unknown>;
  /** Runs `migrate`, then each route's `checkDatabase` (and, with `indexCheck`, its index advice), then each plugin's init. */
  start(knex: Knex): Promise<void>;
  /** Each plugin's close, in reverse order. */
  close(): Promise<void>;
}

/**
 * Wires routers and plugins into one framework-neutral app: checks what plugins depend
 * on, orders every migration set, collects every route, wraps each route with the hooks that apply to it, orders the routes and rejects clashes.
 */
export function bootstrap(options: BootstrapOptions): App {
  const plugins = options.plugins ?? [];
  assertDependencies(plugins);
  const migrations = collectMigrations(plugins, [
    ...routerMigrations(options.routers ?? []),
    ...(options.migrations ?? []),
  ]);
  const migrationTable = options.migrationTable ?? CRUDSMITH_MIGRATIONS;
  const migrate = async (knex: Knex) => {
    if (migrations.length) await runMigrationSets(knex, migrations, migrationTable);
  };
  const collected: RouteDescriptor[] = [
    ...(options.routers ?? []).flatMap((r) => (Array.isArray(r) ? r : r.routes)),
    ...plugins.flatMap((p) => p.routes ?? []),
  ];
  const hooks = plugins.flatMap((p) => (p.hooks ? [p.hooks] : []));
  const routes = orderBySpecificity(
    collected.map((route) => withHooks(route, { hooks: hooks.filter((h) => h.appliesTo?.(route) ?? true), options })),
  );
  assertNoRouteClash(routes);
  return {
    routes,
    fallbacks: plugins.flatMap((p) => (p.fallback ? [p.fallback] : [])),
    migrations,
    migrate,
    migrationSource: (...own) => appMigrationSource(orderMigrationSets([...migrations, ...own]), migrationTable),
    async start(knex) {
      await migrate(knex);
      // After the migrations, which create what the routes need (a FULLTEXT index, say);
      // once per check, as versions and copies of a route share it.
      for (const check of new Set(routes.flatMap((route) => (route.checkDatabase ? [route.checkDatabase] : []))))
        await check(knex);
      if (options.indexCheck ?? !['production', 'test'].includes(process.env.NODE_ENV ?? '')) {
        await adviseIndexes(routes, knex, options.logger ?? console);
      }
      for (const plugin of plugins) await plugin.init?.();
    },
    async close() {
      for (const plugin of [...plugins].reverse()) await plugin.close?.();
    },
  };
}

// Every list's advice at once (one catalogue query each), logged as warnings; a failed
// read is one too, as the advice is never worth a failed start.
async function adviseIndexes(routes: readonly RouteDescriptor[], knex: Knex, logger: ErrorLogger): Promise<void> {
  const advisers = new Set(routes.flatMap((route) => (route.adviseIndexes ? [route.adviseIndexes] : [])));
  const results = await Promise.allSettled([...advisers].map((advise) => advise(knex)));
  // Two versions of one router give the same advice: said once.
  const lines = new Set<string>();
  for (const result of results) {
    if (result.status === 'fulfilled') for (const line of result.value) lines.add(line);
    else lines.add(`Index check skipped: ${(result.reason as Error)?.message ?? String(result.reason)}`);
  }
  for (const line of lines) logger.warn?.(line);
}

// The tables routers need (one set per name, however many routers share it), before the app's own sets.
function routerMigrations(routers: readonly (CrudRouter | RouteDescriptor[])[]): MigrationSet[] {
  const sets = new Map<string, MigrationSet>();
  for (const router of routers)
    if (!Array.isArray(router)) for (const set of router.migrations ?? []) sets.set(set.name, set);
  return [...sets.values()];
}

function assertDependencies(plugins: readonly Plugin[]): void {
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (names.has(plugin.name)) throw new ConfigurationError(`Two plugins are named ${plugin.name}`);
    names.add(plugin.name);
  }
  for (const plugin of plugins) {
    for (const needed of plugin.dependsOn ?? []) {
      if (!names.has(needed))
        throw new ConfigurationError(`Plugin ${plugin.name} needs the ${needed} plugin; pass it to bootstrap`);
    }
  }
}

// A plugin's set runs after the sets of the plugins it depends on; the app lists only its own.
function collectMigrations(plugins: readonly Plugin[], own: readonly MigrationSet[]): MigrationSet[] {
  const fromPlugins = plugins.flatMap((plugin) => {
    if (!plugin.migrations) return [];
    const dependencies = (plugin.dependsOn ?? []).flatMap(
      (name) => plugins.find((p) => p.name === name)?.migrations?.name ?? [],
    );
    return [{ ...plugin.migrations, after: [...(plugin.migrations.after ?? []), ...dependencies] }];
  });
  for (const set of own) {
    if (fromPlugins.some((p) => p.name === set.name)) {
      throw new ConfigurationError(
        `Migration set ${set.name} comes from its plugin, which bootstrap runs itself: list only the app's own sets`,
      );
    }
  }
  return orderMigrationSets([...fromPlugins, ...own]);
}

/**
 * One route with the hooks that apply to it: before hooks (which may answer early), then
 * the route's dependencies and handler; every error is rendered here so after hooks see
 * errors too (a deprecation header belongs on a 404 as well). The route keeps its
 * dependencies, and says its handler resolves them, so runners do not resolve them first.
 */
function withHooks(route: RouteDescriptor, ctx: { hooks: PluginHooks[]; options: BootstrapOptions }): RouteDescriptor {
  const { principal, logger } = ctx.options;
  const befores = ctx.hooks.flatMap((h) => (h.before ? [h.before] : []));
  const afters = ctx.hooks.flatMap((h) => (h.after ? [h.after] : []));
  const onErrors = ctx.hooks.flatMap((h) => (h.onError ? [h.onError] : []));
  if (befores.length + afters.length + onErrors.length === 0 && !principal) return withoutHooks(route, logger);
  return {
    ...route,
    resolvesDependencies: true,
    async handler(req) {
      if (principal) setPrincipalResolver(req, principal);
      let result;
      try {
        for (const before of befores) {
          result = (await before(req, route)) ?? undefined;
          if (result) break;
        }
        if (!result) result = await callHandler(route, req);
      } catch (error) {
        for (const onError of onErrors) await onError(req, route, error);
        result = errorToResult(error, logger, requestContext(req.headers));
      }
      for (const after of afters) result = (await after(req, route, result)) ?? result;
      return result;
    },
  };
}

/**
 * A route no hook applies to, in an app without a principal (most routes of most apps):
 * the same dependencies, handler and error rendering, without an async frame around the
 * handler, whose awaits cost every request turns of the microtask queue.
 */
function withoutHooks(route: RouteDescriptor, logger: ErrorLogger | undefined): RouteDescriptor {
  return {
    ...route,
    resolvesDependencies: true,
    handler(req) {
      const failed = (error: unknown) => errorToResult(error, logger, requestContext(req.headers));
      try {
        return callHandler(route, req).then(undefined, failed);
      } catch (error) {
        return Promise.resolve(failed(error));
      }
    },
  };
}
