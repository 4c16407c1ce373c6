import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import type { Dependency } from '../http/neutral';
import type { RouteDescriptor } from '../http/route';
import { assertNoRouteClash, orderBySpecificity } from '../http/route-order';
import type { ModelClass } from '../model/model-info';
import { useReplicas, type ReplicaOptions } from '../data/replicas';
import { crudRouter, type CrudRouter } from '../crud/endpoint-creator';
import { FilterConfig } from '../crud/filter-config';
import type { CrudOptions } from '../crud/options';
import { declaredFilters } from '../decorators/filter';
import { CRUD_KEY, ownMetadata, SOFT_DELETE_KEY, type SoftDeleteDeclaration } from '../model/declarations';
import type { CrudDeclaration } from '../decorators/metadata';

/** Runtime values the decorated models need to become routes. */
export interface CompileOptions {
  /** A knex instance, or a dependency answering one per request. */
  session: Knex | Dependency<Knex>;
  /**
   * Read replicas of `session` (PostgreSQL): the generated reads, lists and counts outside
   * transactions go to one of them under the replica rule (`useReplicas`); none by default.
   */
  replicas?: Knex[];
  /** How reads use the replicas (lag bound, refresh period). */
  replicaOptions?: ReplicaOptions;
  /**
   * Every compiled model's update, delete, db_delete and restore answer 428 without
   * `If-Match`, unless its @Crud sets `requireIfMatch` itself.
   */
  requireIfMatch?: boolean;
  /** Options every model gets unless its @Crud says otherwise (maxLimit, cursorKey, ...). */
  defaults?: Partial<Omit<CrudOptions, 'model' | 'session'>>;
}

/**
 * The app's collection of decorated models (no global registry: each app, and each
 * test, makes its own). `compile` validates everything and builds the routes.
 */
export class Registry {
  private readonly models: ModelClass[] = [];

  /** Adds decorated models. */
  add(...models: ModelClass[]): this {
    for (const model of models) if (!this.models.includes(model)) this.models.push(model);
    return this;
  }

  /** Whether a model is decorated with @Crud (or crud()), so `optionsOf` can read it. */
  declares(model: ModelClass): boolean {
    return ownMetadata<CrudDeclaration>(CRUD_KEY, model) !== undefined;
  }

  /** The crudRouter options a decorated model declares, with the runtime values. */
  optionsOf(model: ModelClass, runtime: CompileOptions): CrudOptions {
    const declared = ownMetadata<CrudDeclaration>(CRUD_KEY, model);
    if (!declared) throw new ConfigurationError(`Model ${model.name} is not decorated with @Crud (or crud())`);
    const soft = ownMetadata<SoftDeleteDeclaration>(SOFT_DELETE_KEY, model) ?? {};
    const fromConfig =
      declared.filterConfig instanceof FilterConfig ? declared.filterConfig.filters : declared.filterConfig;
    const filters = { ...declaredFilters(model), ...fromConfig };
    return {
      ...runtime.defaults,
      ...declared,
      isDeletedColumn: soft.isDeletedColumn ?? declared.isDeletedColumn ?? runtime.defaults?.isDeletedColumn,
      deletedAtColumn: soft.deletedAtColumn ?? declared.deletedAtColumn ?? runtime.defaults?.deletedAtColumn,
      requireIfMatch: declared.requireIfMatch ?? runtime.requireIfMatch ?? runtime.defaults?.requireIfMatch,
      filterConfig: new FilterConfig(filters),
      model,
      session: declared.session ?? runtime.session,
    };
  }

  /**
   * Builds one CrudRouter per model. Every misconfiguration (unknown filter column,
   * conflicting options, unknown relation, clashing routes) throws here, at startup.
   */
  compile(runtime: CompileOptions): CrudRouter[] {
    if (runtime.replicas?.length) {
      if (typeof runtime.session !== 'function' || !('client' in runtime.session))
        throw new ConfigurationError('replicas need session to be a knex instance, not a dependency');
      useReplicas(runtime.session as Knex, runtime.replicas, runtime.replicaOptions);
    }
    const routers = this.models.map((model) => crudRouter(this.optionsOf(model, runtime)));
    assertNoRouteClash(routers.flatMap((r) => r.routes));
    return routers;
  }
}

/** Creates a registry, optionally with models. */
export function createRegistry(models: ModelClass[] = []): Registry {
  return new Registry().add(...models);
}

/** Every route of several routers, literal segments before parameters; throws on a clash. */
export function routesOf(...routers: (CrudRouter | RouteDescriptor[])[]): RouteDescriptor[] {
  const routes = orderBySpecificity(routers.flatMap((r) => (Array.isArray(r) ? r : r.routes)));
  assertNoRouteClash(routes);
  return routes;
}
