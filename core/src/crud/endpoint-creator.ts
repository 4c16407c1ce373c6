import { assertFulltextIndexes } from '../data/fulltext-index';
import { ConfigurationError } from '../errors/configuration-error';
import type { Dependency, HttpMethod, NeutralRequest, NeutralResult } from '../http/neutral';
import type { RouteDescriptor, RouteDoc } from '../http/route';
import { assertNoRouteClash, orderBySpecificity } from '../http/route-order';
import { bulkConfig } from './bulk-options';
import { bulkRoutes } from './bulk-routes';
import { crudContext, type CrudContext } from './crud-context';
import { exportHandler } from './export-handler';
import { exportPageSize } from './export-stream';
import { indexAdvice } from './index-advice';
import * as operations from './operations';
import { DEFAULT_ENDPOINT_NAMES, OPERATION_KEYS, operationKey, type CrudOptions, type OperationKey } from './options';
import { queryParametersOf } from './paginated-query';
import { routeDoc } from './route-docs';
import { keyPath } from './path-key';
import { accessDoc } from '../access/access-doc';
import type { AccessOperation } from '../access/policy';
import { idempotencyMigrations } from '../data/idempotency-store';
import type { MigrationSet } from '../migrations';

/** The framework-neutral routes of one model, ready for an adapter to mount. */
export interface CrudRouter {
  /** Mount path, such as `/items`. */
  readonly path: string;
  readonly tags: string[];
  readonly routes: RouteDescriptor[];
  /** Tables the routes need (idempotency keys), for `bootstrap` to migrate. */
  readonly migrations?: MigrationSet[];
}

/** A route added next to the generated ones, with a path relative to the router's. */
export interface CustomRoute {
  method: HttpMethod;
  path: string;
  handler: (req: NeutralRequest) => Promise<NeutralResult>;
  dependencies?: Dependency[];
  operation?: string;
  doc?: Partial<RouteDoc>;
  /** False: served, but left out of the OpenAPI document (default true). */
  includeInSchema?: boolean;
}

const METHODS: Record<OperationKey, HttpMethod> = {
  create: 'POST',
  read: 'GET',
  readMulti: 'GET',
  update: 'PATCH',
  delete: 'DELETE',
  dbDelete: 'DELETE',
  restore: 'POST',
  export: 'GET',
};
// Whoever may not delete a row may not bring it back; whoever may not list rows may not export them.
const FALLBACK_DEPS: Partial<Record<OperationKey, `${OperationKey}Deps`>> = {
  restore: 'deleteDeps',
  export: 'readMultiDeps',
};
// The policy's name of each generated operation.
const ACCESS_OF: Record<OperationKey, AccessOperation> = {
  create: 'create',
  read: 'read',
  readMulti: 'list',
  update: 'update',
  delete: 'delete',
  dbDelete: 'hardDelete',
  restore: 'restore',
  // An export answers what the list would, every page of it.
  export: 'list',
};
const WITH_ID: OperationKey[] = ['read', 'update', 'delete', 'dbDelete'];
// The restore segment follows the id (`POST /items/{id}/restore`): it acts on that row.
const ID_FIRST: OperationKey[] = ['restore'];
const HANDLERS: Record<OperationKey, (ctx: CrudContext, options: CrudOptions) => RouteDescriptor['handler']> = {
  create: operations.createHandler,
  read: operations.readHandler,
  readMulti: operations.readMultiHandler,
  update: operations.updateHandler,
  delete: operations.deleteHandler,
  dbDelete: operations.dbDeleteHandler,
  restore: operations.restoreHandler,
  export: (ctx, options) => exportHandler(ctx, exportPageSize(options.export)),
};

function keysOf(list: string[] | undefined, option: string): Set<string> | undefined {
  if (!list) return undefined;
  return new Set(
    list.map((name) => {
      const key = operationKey(name);
      if (!key)
        throw new ConfigurationError(`${option}: unknown operation '${name}' (use ${OPERATION_KEYS.join(', ')})`);
      return key === 'readPaginated' ? 'readMulti' : key;
    }),
  );
}

/**
 * Builds the CRUD routes of one model. Subclass it to override
 * `addRoutesToRouter` or a single `route`, and add routes with `addCustomRoute`.
 */
export class EndpointCreator {
  readonly options: CrudOptions;
  readonly ctx: CrudContext;
  readonly path: string;
  readonly tags: string[];
  protected readonly names: Record<OperationKey, string>;
  protected readonly included: Set<OperationKey>;
  protected readonly routeList: RouteDescriptor[] = [];

  constructor(options: CrudOptions) {
    if (options.includedMethods && options.deletedMethods) {
      throw new ConfigurationError('includedMethods and deletedMethods cannot be used together');
    }
    this.options = options;
    this.ctx = crudContext(options);
    this.path = `/${(options.path ?? this.ctx.info.table).replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '');
    this.tags = options.tags ?? [this.ctx.info.model.name];
    this.names = { ...DEFAULT_ENDPOINT_NAMES };
    for (const [name, segment] of Object.entries(options.endpointNames ?? {})) {
      const key = operationKey(name);
      if (!key) throw new ConfigurationError(`endpointNames: unknown operation '${name}'`);
      // readPaginated was merged into readMulti (FastCRUD 0.15.0 did the same).
      if (segment !== undefined)
        this.names[key === 'readPaginated' ? 'readMulti' : key] = segment.replace(/^\/+|\/+$/g, '');
    }
    const include = keysOf(options.includedMethods, 'includedMethods');
    const exclude = keysOf(options.deletedMethods, 'deletedMethods');
    this.included = new Set(OPERATION_KEYS.filter((op) => (include ? include.has(op) : !exclude?.has(op))));
    if (!options.deleteSchema) this.included.delete('dbDelete');
    // Only a soft-deleting model has rows to restore.
    if (!this.ctx.repo.softDelete) this.included.delete('restore');
    if (!options.export) this.included.delete('export');
    if (this.included.has('create') && !options.createSchema)
      throw new ConfigurationError('createSchema is required for the create endpoint');
    if (this.included.has('update') && !options.updateSchema)
      throw new ConfigurationError('updateSchema is required for the update endpoint');
  }

  /** Adds the generated route of every included operation. */
  addRoutesToRouter(): void {
    for (const op of OPERATION_KEYS) if (this.included.has(op)) this.routeList.push(this.route(op));
    const bulk = bulkConfig(this.ctx, this.options.bulk);
    if (bulk)
      this.routeList.push(
        ...bulkRoutes(this.ctx, bulk, this.options, { path: this.path, name: this.docName, tags: this.tags }),
      );
  }

  /** The route of one operation; override to change a single endpoint. */
  protected route(op: OperationKey): RouteDescriptor {
    const segment = this.names[op];
    const key = keyPath(this.ctx.info);
    const parts = ID_FIRST.includes(op)
      ? [this.path, key, segment]
      : [this.path, segment, WITH_ID.includes(op) ? key : ''];
    const path = parts.filter(Boolean).join('/') || '/';
    const fallback = FALLBACK_DEPS[op];
    const deps = this.options[`${op}Deps` as const] ?? (fallback ? this.options[fallback] : undefined) ?? [];
    const base = routeDoc(this.ctx, op, { name: this.docName, tags: this.tags });
    const access = accessDoc(this.ctx.repo.policy, ACCESS_OF[op]);
    const doc = { ...base, ...access, extensions: { ...base.extensions, ...access.extensions } };
    const route: RouteDescriptor = {
      method: METHODS[op],
      path,
      operation: doc.operationId,
      dependencies: [...deps],
      handler: HANDLERS[op](this.ctx, this.options),
      doc,
    };
    if (op === 'readMulti') {
      route.checkDatabase = fulltextCheck(this.ctx);
      route.adviseIndexes = indexAdvice(this.ctx, this.options.sortable);
    }
    return route;
  }

  /** Adds a custom route beside the generated ones. */
  addCustomRoute(route: CustomRoute): void {
    const path = `${this.path}/${route.path.replace(/^\/+/, '')}`.replace(/\/$/, route.path.endsWith('/') ? '/' : '');
    const operation =
      route.operation ??
      `${this.docName}_${route.method.toLowerCase()}_${route.path.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
    const dependencies = [...(route.dependencies ?? [])];
    // The query classes among the dependencies publish the parameters they read.
    const parameters = [...dependencies.flatMap(queryParametersOf), ...(route.doc?.parameters ?? [])];
    this.routeList.push({
      method: route.method,
      path,
      operation,
      dependencies,
      handler: route.handler,
      doc: { operationId: operation, tags: this.tags, ...route.doc, ...(parameters.length > 0 ? { parameters } : {}) },
      ...(route.includeInSchema === false ? { includeInSchema: false } : {}),
    });
  }

  /** The routes built so far, literal segments before parameters; throws on a clash. */
  get router(): CrudRouter {
    const routes = orderBySpecificity(this.routeList);
    assertNoRouteClash(routes);
    const table = this.ctx.idempotency?.store.table;
    const migrations = table ? [idempotencyMigrations(table)] : undefined;
    return { path: this.path, tags: this.tags, routes, ...(migrations ? { migrations } : {}) };
  }

  /** The model's name in operation ids: the mount path's last segment, or the table. */
  protected get docName(): string {
    return (this.path.split('/').filter(Boolean).pop() ?? this.ctx.info.table).replace(/[^a-zA-Z0-9]+/g, '_');
  }
}

/** The check that every column a `match` filter of the list searches has its FULLTEXT index (MySQL/MariaDB). */
function fulltextCheck(ctx: CrudContext): RouteDescriptor['checkDatabase'] {
  const matched = ctx.filters
    .filter((filter) => filter.op === 'match')
    .map((filter) => ({ model: filter.owner.model.name, table: filter.owner.table, column: filter.column.name }));
  return (knex) => assertFulltextIndexes(ctx.fixedSession ?? knex, matched);
}

/** Builds a model's CRUD routes in one call (FastCRUD's `crud_router`). */
export function crudRouter(options: CrudOptions): CrudRouter {
  const Creator = options.endpointCreator ?? EndpointCreator;
  const creator = new Creator(options);
  creator.addRoutesToRouter();
  return creator.router as CrudRouter;
}
