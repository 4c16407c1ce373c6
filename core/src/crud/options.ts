import type { Knex } from 'knex';
import type { Dependency } from '../http/neutral';
import type { JoinConfig } from '../data/joins';
import type { ModelClass } from '../model/model-info';
import type { CrudRepository } from '../data/repository';
import type { RepositoryOptions } from '../data/repository-options';
import type { SchemaLike } from '../schema/fields';
import type { CreateConfig, DeleteConfig, FieldInjectionInit, UpdateConfig } from './field-injection';
import type { FilterConfig, FilterValue } from './filter-config';
import type { IdempotencyOptions } from './idempotency';

/** The generated operations. */
export const OPERATION_KEYS = [
  'create',
  'read',
  'readMulti',
  'update',
  'delete',
  'dbDelete',
  'restore',
  'export',
] as const;
export type OperationKey = (typeof OPERATION_KEYS)[number];

/** FastCRUD's snake_case spellings, accepted beside the camelCase keys. */
const ALIASES: Record<string, OperationKey | 'readPaginated'> = {
  read_multi: 'readMulti',
  db_delete: 'dbDelete',
  read_paginated: 'readPaginated',
};

/** The camelCase key of an operation name, or undefined when unknown. */
export function operationKey(name: string): OperationKey | 'readPaginated' | undefined {
  const key = ALIASES[name] ?? name;
  return key === 'readPaginated' || (OPERATION_KEYS as readonly string[]).includes(key)
    ? (key as OperationKey | 'readPaginated')
    : undefined;
}

/** Path segment of each operation when `endpointNames` does not change it. */
export const DEFAULT_ENDPOINT_NAMES: Record<OperationKey, string> = {
  create: '',
  read: '',
  readMulti: '',
  update: '',
  delete: '',
  dbDelete: 'db_delete',
  restore: 'restore',
  export: 'export',
};

/** How `GET {path}/export` reads the rows it streams. */
export interface ExportOptions {
  /** Rows read per keyset page, 1 to 1000 (default 500): what the server holds at a time. */
  pageSize?: number;
}

/**
 * The repository's own options, which a router hands to the CrudRepository it builds
 * (a `crud` instance given instead brings its own): documented once, in RepositoryOptions.
 */
export type RouterRepositoryOptions = Pick<
  RepositoryOptions,
  | 'isDeletedColumn'
  | 'deletedAtColumn'
  | 'updatedAtColumn'
  | 'createdAtColumn'
  | 'customFilters'
  | 'cursorKey'
  | 'access'
>;

/**
 * Options of `crudRouter` and `EndpointCreator` (FastCRUD's parameters in camelCase); the
 * repository's own are passed to the CrudRepository the router builds.
 */
export interface CrudOptions<M extends ModelClass = ModelClass> extends RouterRepositoryOptions {
  /** A knex instance, or a dependency answering one per request. */
  session: Knex | Dependency<Knex>;
  model: M;
  createSchema?: SchemaLike;
  updateSchema?: SchemaLike;
  /** When given, the hard-delete endpoint is added. */
  deleteSchema?: SchemaLike;
  /** When given, create answers the created item, and reads answer these fields. */
  selectSchema?: SchemaLike;
  crud?: CrudRepository<M>;
  /** Mount path, such as `/items`. */
  path?: string;
  tags?: string[];
  includedMethods?: string[];
  deletedMethods?: string[];
  endpointNames?: Partial<Record<string, string>>;
  filterConfig?: FilterConfig | Record<string, FilterValue>;
  createConfig?: CreateConfig | FieldInjectionInit;
  updateConfig?: UpdateConfig | FieldInjectionInit;
  deleteConfig?: DeleteConfig | FieldInjectionInit;
  /** false (default), true (one-to-one relations), or a list of relation names. */
  includeRelationships?: boolean | string[];
  includeOneToMany?: boolean;
  joinsConfig?: JoinConfig[];
  /**
   * Relations whose related rows each read and list row counts, as `<relation>_count`
   * (an integer, soft-deleted related rows left out), in the same statement as the rows.
   */
  relationshipCounts?: string[];
  /** Nest one-to-one related rows under the relation name (default true) or flatten them. */
  nestJoins?: boolean;
  /** A subclass of EndpointCreator to build the routes with. */
  endpointCreator?: new (options: CrudOptions<any>) => { addRoutesToRouter(): void; readonly router: unknown };
  createDeps?: Dependency[];
  readDeps?: Dependency[];
  readMultiDeps?: Dependency[];
  updateDeps?: Dependency[];
  deleteDeps?: Dependency[];
  dbDeleteDeps?: Dependency[];
  /**
   * Dependencies of the restore endpoint; without them it runs `deleteDeps`, so whoever
   * may not delete a row may not bring it back either.
   */
  restoreDeps?: Dependency[];
  /** Dependencies of the export endpoint; without them it runs `readMultiDeps`, as it reads the same rows. */
  exportDeps?: Dependency[];
  /**
   * Adds `GET {path}/export?format=csv|ndjson|json`: every row the list answers for the
   * same filters and sort, streamed (off unless given).
   */
  export?: boolean | ExportOptions;
  /** Largest `limit` / `itemsPerPage` (default 1000). */
  maxLimit?: number;
  /** Rows answered without pagination parameters (default 100). */
  defaultLimit?: number;
  /**
   * Largest JSON list answer, in bytes (default 10 MiB): a page over it is a 422 on
   * `limit` (or `itemsPerPage`) saying how many rows would fit, never an unbounded body.
   */
  maxResponseBytes?: number;
  /** Update, delete, db_delete and restore answer 428 without an `If-Match` header. */
  requireIfMatch?: boolean;
  /**
   * Honour `Idempotency-Key` on create: a repeat of a key answers the first request's
   * answer again and writes nothing. Keys live in a table (`idempotencyMigrations()`, which
   * the router carries for `bootstrap`) for 24 hours unless `ttlSeconds` says otherwise.
   */
  idempotency?: boolean | IdempotencyOptions;
  /**
   * Columns a client may `sort` on besides those the answer shows (the select schema's
   * fields, or every column without one). Any other sort column is a 400, so the order
   * of a page never reveals a column the answer hides.
   */
  sortable?: string[];
  /**
   * Adds the bulk operations (off by default): `POST /bulk` (with `?on_conflict=` an
   * upsert), `PATCH /bulk`, `DELETE /bulk` and `PUT /{id}`; `true` for all of them.
   */
  bulk?: boolean | BulkOptions;
}

/** The bulk operations a router may offer. */
export const BULK_OPERATIONS = ['create', 'update', 'delete', 'upsert'] as const;
/** One bulk operation: `POST /bulk`, `PATCH /bulk`, `DELETE /bulk`, or `PUT /{id}` with `?on_conflict=`. */
export type BulkOperation = (typeof BULK_OPERATIONS)[number];

/** The `bulk` option of a router. */
export interface BulkOptions {
  /** The operations offered (default all four). */
  operations?: BulkOperation[];
  /** Largest array `POST /bulk` takes (default 1000); a longer one is a 413. */
  maxItems?: number;
  /** Most rows one bulk update or delete may touch; a request's `Prefer: max-affected` may lower it. */
  maxAffected?: number;
  /** The unique columns `?on_conflict=` may name (the primary key always may). */
  conflictColumns?: string[];
}
