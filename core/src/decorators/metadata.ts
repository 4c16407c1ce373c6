import type { Operator } from '../data/operators';
import type { CrudOptions } from '../crud/options';
import type { FilterValue } from '../crud/filter-config';

// What the decorators record that names crud or data types; the keys, the metadata
// calls and @SoftDelete's shape are one floor down, in model/declarations.

/** What `@Crud` records: every crudRouter option except the runtime ones. */
export type CrudDeclaration = Omit<CrudOptions, 'model' | 'session'> & { session?: CrudOptions['session'] };

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
