import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import type { Dependency, NeutralRequest } from '../http/neutral';
import type { Filters } from '../data/filters';
import { resolveJoins, type JoinConfig } from '../data/joins';
import type { ModelInfo } from '../model/model-info';
import { relationshipCounts } from '../data/relationship-counts';
import { CrudRepository } from '../data/repository';
import { schemaFields, type SchemaLike } from '../schema/fields';
import { CreateConfig, DeleteConfig, FieldInjection, UpdateConfig } from './field-injection';
import { declareFilters, scopeFilters, type DeclaredFilter } from './filter-config';
import type { ListLimits } from './list-query';
import type { CrudOptions, RouterRepositoryOptions } from './options';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-size';
import { pathKeyFilters } from './path-key';
import { guardedModel } from '../access/effective';
import { idempotencyOf, type Idempotency } from './idempotency';

/** Everything the generated handlers share, checked once when the routes are built. */
export interface CrudContext {
  repo: CrudRepository;
  info: ModelInfo;
  session: Dependency<Knex>;
  /** The knex instance when `session` is one (not a per-request provider): no dependency to resolve. */
  fixedSession?: Knex;
  createSchema?: SchemaLike;
  updateSchema?: SchemaLike;
  selectSchema?: SchemaLike;
  filters: DeclaredFilter[];
  joins?: JoinConfig[];
  /** The relations each answered row counts (`<relation>_count`). */
  relationshipCounts?: string[];
  nestJoins: boolean;
  createConfig: FieldInjection;
  updateConfig: FieldInjection;
  deleteConfig: FieldInjection;
  limits: ListLimits & { maxResponseBytes: number };
  /** The columns a client may sort on: those the answer shows, and the declared `sortable`. */
  sortable: ReadonlySet<string>;
  /** The column every update stamps (a row's tag follows it when the model has no `version`). */
  updatedAtColumn: string;
  /** Writes of one row answer 428 without `If-Match`. */
  requireIfMatch: boolean;
  /** The model or a related one has an access policy: every route looks up the caller. */
  guarded: boolean;
  /** How creates honour `Idempotency-Key`; undefined: they ignore it. */
  idempotency?: Idempotency;
}

function injection<T extends FieldInjection>(Kind: new (init?: object) => T, value: T | object | undefined): T {
  return value instanceof FieldInjection ? (value as T) : new Kind(value ?? {});
}

/** Resolves the options into a context, throwing ConfigurationError on any misfit. */
export function crudContext(options: CrudOptions): CrudContext {
  const repo =
    options.crud ??
    new CrudRepository(options.model, {
      isDeletedColumn: options.isDeletedColumn,
      deletedAtColumn: options.deletedAtColumn,
      updatedAtColumn: options.updatedAtColumn,
      createdAtColumn: options.createdAtColumn,
      customFilters: options.customFilters,
      cursorKey: options.cursorKey,
      access: options.access,
    } satisfies Record<keyof RouterRepositoryOptions, unknown>);
  const info = repo.info;
  const session = options.session;
  const ctx: CrudContext = {
    repo,
    info,
    session:
      typeof session === 'function' && !('client' in session) ? (session as Dependency<Knex>) : () => session as Knex,
    fixedSession: typeof session === 'function' && !('client' in session) ? undefined : (session as Knex),
    createSchema: options.createSchema,
    updateSchema: options.updateSchema,
    selectSchema: options.selectSchema,
    // The repository applies the filters, so its operators are the ones a key may use
    // (a `crud` instance brings its own customFilters).
    filters: declareFilters(info, options.filterConfig, repo.customFilters),
    joins: relationshipJoins(info, options),
    relationshipCounts: options.relationshipCounts?.length ? [...options.relationshipCounts] : undefined,
    nestJoins: options.nestJoins ?? true,
    createConfig: injection(CreateConfig, options.createConfig),
    updateConfig: injection(UpdateConfig, options.updateConfig),
    deleteConfig: injection(DeleteConfig, options.deleteConfig),
    sortable: sortableColumns(info, options),
    updatedAtColumn: options.updatedAtColumn ?? 'updated_at',
    requireIfMatch: options.requireIfMatch ?? false,
    guarded: guardedModel(info, repo.policy !== undefined),
    idempotency: idempotencyOf(options.idempotency),
    limits: {
      maxLimit: options.maxLimit ?? 1000,
      defaultLimit: options.defaultLimit ?? 100,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
  };
  const { maxResponseBytes } = ctx.limits;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1)
    throw new ConfigurationError(`maxResponseBytes must be a positive integer, got ${maxResponseBytes}`);
  if (ctx.limits.defaultLimit > ctx.limits.maxLimit)
    throw new ConfigurationError('defaultLimit cannot exceed maxLimit');
  // The repository checks these only when it reads; a misfit must fail here, at startup.
  if (ctx.joins) resolveJoins(info, ctx.joins);
  if (ctx.relationshipCounts) relationshipCounts(info, ctx.relationshipCounts);
  // A body field with no column would only fail in SQL, at the first write: check it now.
  for (const [name, schema] of [
    ['selectSchema', ctx.selectSchema],
    ['createSchema', ctx.createSchema],
    ['updateSchema', ctx.updateSchema],
  ] as const) {
    for (const field of schema ? schemaFields(schema) : []) {
      if (!info.columns.has(field))
        throw new ConfigurationError(`${name} field '${field}' is not a column of model ${info.model.name}`);
    }
  }
  for (const config of [ctx.createConfig, ctx.updateConfig, ctx.deleteConfig]) {
    for (const field of Object.keys(config.autoFields)) {
      if (!info.columns.has(field))
        throw new ConfigurationError(`Auto field '${field}' is not a column of model ${info.model.name}`);
    }
  }
  return ctx;
}

/** The answered columns (the select schema's, or all) and the declared `sortable` ones. */
function sortableColumns(info: ModelInfo, options: CrudOptions): ReadonlySet<string> {
  for (const column of options.sortable ?? []) {
    if (!info.columns.has(column))
      throw new ConfigurationError(`sortable column '${column}' is not a column of model ${info.model.name}`);
  }
  const shown = options.selectSchema ? schemaFields(options.selectSchema) : [...info.columns.keys()];
  return new Set([...shown, ...(options.sortable ?? [])]);
}

/** The joins that includeRelationships or joinsConfig ask for (mutually exclusive). */
function relationshipJoins(info: ModelInfo, options: CrudOptions): JoinConfig[] | undefined {
  const include = options.includeRelationships ?? false;
  if (options.joinsConfig && include !== false) {
    throw new ConfigurationError('includeRelationships and joinsConfig are mutually exclusive: pass one of them');
  }
  if (options.joinsConfig) return options.joinsConfig;
  if (include === false) return undefined;
  const available = Object.keys(info.relations);
  if (Array.isArray(include)) {
    const invalid = include.filter((name) => !available.includes(name));
    if (invalid.length > 0) {
      throw new ConfigurationError(
        `Invalid relationship names: ${invalid.join(', ')}. Available relationships of ${info.model.name}: ${available.join(', ') || 'none'}`,
      );
    }
    return include.map((relation) => ({ relation }));
  }
  return available
    .filter(
      (name) => options.includeOneToMany || (info.relations[name] as unknown as { isOneToOne(): boolean }).isOneToOne(),
    )
    .map((relation) => ({ relation }));
}

/**
 * The filters that pick the row of a path id, plus the row-level scope. A malformed id
 * is a 422 (thrown at once); an id no row can have (out of the column's range) is simply
 * not found. Without a dependency-valued filter the answer is synchronous.
 */
export function rowFilters(ctx: CrudContext, req: NeutralRequest): Filters | Promise<Filters> {
  const key = pathKeyFilters(ctx.info, req);
  // No dependency-valued filter (the common case): no scope to resolve, no extra tick.
  if (!ctx.filters.some((f) => f.dependency)) return key;
  return scopeFilters(ctx.filters, req).then((scope) => ({ ...scope, ...key }));
}

/** The knex instance (or transaction) of this request; a fixed one is answered as is. */
export function sessionOf(ctx: CrudContext, req: NeutralRequest): Knex | Promise<Knex> {
  return ctx.fixedSession ?? req.resolve(ctx.session);
}
