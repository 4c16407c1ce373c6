// The types a generated module fills in for each resource, and the list query built from them.

/** What the generator declares for one resource. */
export interface ResourceSpec {
  /** The path parameter: a scalar, or an object by name for a composite key. */
  id: string | number | Record<string, string | number>;
  /** The answer's row (the select schema). */
  row: unknown;
  /** The create body. */
  create: object;
  /** The update body (every field optional). */
  update: object;
  /** What create, update and delete answer. */
  created: unknown;
  updated: unknown;
  deleted: unknown;
  /** Each declared filter key with its value type. */
  filters: object;
  /** The sortable columns. */
  sort: string;
}

/** A sort key: a column, or `-column` for descending. */
export type SortKey<S extends ResourceSpec> = S['sort'] | `-${S['sort']}`;

interface ListBase<S extends ResourceSpec> {
  /** Declared filters only, each value of its column's type. */
  filters?: S['filters'];
  sort?: SortKey<S> | readonly SortKey<S>[];
}

/** Offset form: `{data, total_count}`. */
export interface OffsetQuery<S extends ResourceSpec> extends ListBase<S> {
  offset?: number;
  limit?: number;
  page?: never;
  itemsPerPage?: never;
  cursor?: never;
}

/** Page form: `{data, total_count, has_more, page, items_per_page}`. */
export interface PageQuery<S extends ResourceSpec> extends ListBase<S> {
  page: number;
  itemsPerPage?: number;
  offset?: never;
  limit?: never;
  cursor?: never;
}

/** Keyset form: `{data, next_cursor}`; `cursor` null (or empty) for the first page. */
export interface CursorQuery<S extends ResourceSpec> extends ListBase<S> {
  cursor: string | null;
  limit?: number;
  offset?: never;
  page?: never;
  itemsPerPage?: never;
}

/** What `paginate` takes: the keyset form without its cursor. */
export type PaginateQuery<S extends ResourceSpec> = Omit<CursorQuery<S>, 'cursor'>;

/** The list envelope. */
export interface ListPage<T> {
  data: T[];
  total_count: number;
}
/** The page envelope. */
export interface NumberedPage<T> extends ListPage<T> {
  has_more: boolean;
  page: number;
  items_per_page: number;
}
/** The keyset page. */
export interface KeysetPage<T> {
  data: T[];
  next_cursor: string | null;
}

/** Options of the writes of one row. */
export interface WriteOptions {
  /** The ETag read before: the write happens only while the row still has it (412 otherwise). */
  ifMatch?: string;
  /** `return=minimal`: the server answers 204 and the call null. */
  prefer?: Prefer;
}

/** The `Prefer` header of the writes. */
export type Prefer = 'return=minimal' | 'return=representation';

/** Options of a create. */
export interface CreateOptions {
  /** Sent as `Idempotency-Key`: a retried create with the same key answers the first result. */
  idempotencyKey?: string;
  /** `return=minimal`: the server answers 204 and the call null. */
  prefer?: Prefer;
}

/** What `export` takes: the list's filters and sort, and the format (csv by default). */
export interface ExportQuery<S extends ResourceSpec> extends ListBase<S> {
  format?: 'csv' | 'ndjson' | 'json';
}
