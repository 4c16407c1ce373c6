import type { SchemaLike } from '../schema/fields';
import type { Filters } from './filters';
import type { JoinConfig } from './joins';
import type { ModelClass } from '../model/model-info';
import type { CustomFilter } from './operators';
import type { CursorKey } from './cursor';
import type { AccessPolicy } from '../access/policy';
import type { Principal } from '../http/principal';

type Row = Record<string, unknown>;

/** Options of a CrudRepository: soft-delete and timestamp columns, custom operators. */
export interface RepositoryOptions {
  /** Soft-delete flag column (default `is_deleted`); soft delete applies when the model has it. */
  isDeletedColumn?: string;
  /** Set to the current time by a soft delete and emptied by a restore, when the model has it (default `deleted_at`). */
  deletedAtColumn?: string;
  /** Set to the current time on every update when the model has it (default `updated_at`). */
  updatedAtColumn?: string;
  /**
   * Set to the current time on create when the model has it as a date-time column and the
   * values do not name it (default `created_at`; null: never), as a generic item's
   * "defaults to creation time" without a model hook.
   */
  createdAtColumn?: string | null;
  customFilters?: Record<string, CustomFilter>;
  /**
   * Encrypts and authenticates keyset cursors (AES-256-GCM, bound to the list's table and
   * sort): a key derived from the app's secret, or a function answering one (asked once).
   * Without it a random key of this process does, so a `next_cursor` fails (400) on any
   * other process and after a restart.
   */
  cursorKey?: CursorKey;
  /** Most values an `in`/`not_in` filter may list (default 1000). */
  maxListSize?: number;
  /**
   * The model's access policy (in place of its `@Access`): who may perform each operation,
   * on which rows, and which fields it reads and writes. Behind a router, the caller is the
   * principal dependency the app gives `bootstrap`.
   */
  access?: AccessPolicy;
}

/** The caller whose access policy applies; null is an anonymous caller, absent applies none. */
export interface AccessOptions {
  principal?: Principal | null;
}

/** Options shared by every read. */
export interface ReadOptions extends AccessOptions {
  schemaToSelect?: SchemaLike;
  /** Answer instances of the schema class (or of the model) instead of plain objects. */
  returnAsModel?: boolean;
  /** Include soft-deleted rows. */
  includeDeleted?: boolean;
  joinsConfig?: JoinConfig[];
  /** Nest one-to-one rows under the relation key (default) or flatten them with a prefix. */
  nestJoins?: boolean;
  /** One join by shorthand (FastCRUD's join_model, join_prefix, ...). */
  joinModel?: ModelClass | string;
  joinOn?: Record<string, string>;
  joinPrefix?: string;
  joinSchemaToSelect?: SchemaLike;
  joinType?: 'left' | 'inner';
  relationshipType?: 'one-to-one' | 'one-to-many';
  /**
   * Relations whose related rows each answered row counts, as `<relation>_count` (soft-deleted
   * related rows left out), selected in the same statement as the rows.
   */
  relationshipCounts?: readonly string[];
}

/** Options of a list read. */
export interface ListOptions extends ReadOptions {
  filters?: Filters;
  offset?: number;
  limit?: number;
  sortColumns?: string | string[];
  sortOrders?: string | string[];
  /** Count the matching rows (default true). */
  returnTotalCount?: boolean;
}

/** Options of a keyset (cursor) page. */
export interface CursorOptions extends ReadOptions {
  filters?: Filters;
  /** The `next_cursor` of the previous page; absent or empty for the first page. */
  cursor?: string | null;
  limit?: number;
  sortColumn?: string;
  sortOrder?: 'asc' | 'desc';
  sortColumns?: string[];
  sortOrders?: ('asc' | 'desc')[];
}

/** Options of update, delete and dbDelete. */
export interface WriteOptions extends AccessOptions {
  /** Allow the filters to match several rows (otherwise more than one is a 400). */
  allowMultiple?: boolean;
  /**
   * Say that no filter is meant: without it a call whose filters
   * are empty throws ConfigurationError rather than act on every row.
   */
  all?: boolean;
  /**
   * Column values the row must still hold to be written (an `If-Match`), checked in the
   * write's own WHERE: a row that changed meanwhile is not written, as if it matched none.
   */
  unchanged?: Record<string, unknown>;
}

/** Options of delete. */
export interface DeleteOptions extends WriteOptions {
  /** Extra columns written by a soft delete (for example `deleted_by`). */
  values?: Row;
}

/** Options of update. */
export interface UpdateOptions extends WriteOptions {
  filters: Filters;
  /** Answer the updated row(s) in this shape: through RETURNING where the engine has it, else read again. */
  schemaToSelect?: SchemaLike;
}
