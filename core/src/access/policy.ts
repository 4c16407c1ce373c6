import type { Knex } from 'knex';
import type { Principal } from '../http/principal';

// A model's access policy, as the app declares it (with `@Access`, `access()` or the
// `access` option of crudRouter): per operation, who may perform it, on which rows, and
// which fields it may read or write. Only plain data and functions of the principal: the
// rules are compiled into each statement's WHERE by the repository.

/** The operations a policy names (bulk and export operations join this list when they exist). */
export const ACCESS_OPERATIONS = ['create', 'read', 'list', 'update', 'delete', 'restore', 'hardDelete'] as const;
export type AccessOperation = (typeof ACCESS_OPERATIONS)[number];

/** A value of a row rule: a constant, or a function of the principal (`(p) => p.id`). */
export type RowValue = unknown;

/**
 * Which rows: filters over the model's own columns (`{ owner_id: (p) => p.id }`, operators
 * and `_or` as in a filter config), or a knex callback adding its own conditions, with the
 * table (or alias) to qualify columns with.
 */
export type RowRule = Record<string, RowValue> | ((qb: Knex.QueryBuilder, principal: Principal, table: string) => void);

/** A set of fields: the allowed ones, or every column except some. */
export type FieldSet = readonly string[] | { readonly except: readonly string[] };

/** Which fields: a set, or a function of the principal answering one. */
export type FieldRule = FieldSet | ((principal: Principal) => FieldSet);

/**
 * A field shown on some rows only, decided per caller: `true` on every row, `false` on
 * none, or a predicate of the row as stored (its hidden columns included), such as
 * `(p) => isEditor(p) || ((note) => note.owner_id === p.id)`.
 */
export type RowFieldRule = (principal: Principal) => boolean | ((row: Readonly<Record<string, unknown>>) => boolean);

/** The rule of one operation. */
export interface OperationRule {
  /** Roles of which the caller needs one. */
  roles?: readonly string[];
  /** Permissions of which the caller needs one (`notes:update`). */
  permissions?: readonly string[];
  /** A predicate of the principal; passing it is enough, as holding a role is. */
  when?: (principal: Principal) => boolean;
  /** The rows the operation reaches. */
  rows?: RowRule;
  /** Read and list: the fields answered. Create and update: the fields a body may set. */
  fields?: FieldRule;
  /**
   * Read and list: fields answered only on the rows their rule allows (of those `fields`
   * lets through). A caller who does not see such a field on every row may neither
   * filter nor sort on it, and joined data leaves it out.
   */
  rowFields?: Readonly<Record<string, RowFieldRule>>;
}

/**
 * A model's policy: a rule per operation, and `default` for the operations it does not
 * name. An operation with neither is open, as without a policy; one with a rule needs a
 * principal (401 without), and a superuser passes every rule.
 */
export type AccessPolicy = Partial<Record<AccessOperation | 'default', OperationRule>>;
