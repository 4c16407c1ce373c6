import 'reflect-metadata';
import type { Operator } from '../data/operators';
import type { CrudOptions } from '../crud/options';
import type { FilterValue } from '../crud/filter-config';

// Decorators only record plain arguments on the class with reflect-metadata (own
// metadata, so a subclass never inherits a parent's @Crud by accident); the registry
// reads them when the app compiles its routes.

export const CRUD_KEY = 'crudsmith:crud';
export const SOFT_DELETE_KEY = 'crudsmith:soft-delete';
export const FILTERS_KEY = 'crudsmith:filters';
export const ACCESS_KEY = 'crudsmith:access';

/** What `@Crud` records: every crudRouter option except the runtime ones. */
export type CrudDeclaration = Omit<CrudOptions, 'model' | 'session'> & { session?: CrudOptions['session'] };

/** What `@SoftDelete` records. */
export interface SoftDeleteDeclaration {
  isDeletedColumn?: string;
  deletedAtColumn?: string;
}

/** Options of `@Filter()` on a property. */
export interface PropertyFilterOptions {
  /**
   * Operators the query may use on this column besides plain equality; `'all'` for every
   * one its type takes (text-matching operators only on text columns).
   */
  operators?: Operator[] | 'all';
  /** Default value applied when the query does not give one. */
  default?: FilterValue;
}

/** A column declared with `operators: 'all'`, expanded once its type can be read. */
export class AllOperators {
  constructor(
    readonly column: string,
    readonly defaultValue: FilterValue,
  ) {}
}

/** One `@Filter`/`filter()` call as recorded: query keys, or a column with every operator. */
export type FilterDeclaration = Record<string, FilterValue> | AllOperators;

/** Reads a class's own metadata, or undefined. */
export function ownMetadata<T>(key: string, target: Function): T | undefined {
  return Reflect.getOwnMetadata(key, target) as T | undefined;
}

/** Records metadata on the class itself. */
export function defineMetadata(key: string, value: unknown, target: Function): void {
  Reflect.defineMetadata(key, value, target);
}
