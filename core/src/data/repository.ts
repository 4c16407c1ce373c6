import type { Knex } from 'knex';
import { plainToInstance } from 'class-transformer';
import { BadRequestError, NotFoundError, ValidationError } from '../errors/http-error';
import { mapDatabaseError } from '../errors/database-error';
import type { SchemaLike } from '../schema/fields';
import { reuseCompiledSql } from './compiled-sql';
import { insertDirectly, patchDirectly, plainValues, writesDirectly } from './direct-writes';
import { applyKeyset, cursorKeyOf, decodeCursor, encodeCursor, type CursorKey } from './cursor';
import type { Filters } from './filters';
import { resolveJoins, type JoinConfig, type ResolvedJoin } from './joins';
import { modelInfo, type ModelClass, type ModelInfo } from './model-info';
import type { CustomFilter } from './operators';
import { countRows, readRows, startBuild, stripExtras, whereQuery, type ReadContext, type ReadPlan, type ReadResult } from './read-query';
import { sortSpecs } from './sort';
import { writeValues } from './write-values';

/** Options of a CrudRepository: soft-delete and timestamp columns, custom operators. */
export interface RepositoryOptions {
  /** Soft-delete flag column (default `is_deleted`); soft delete applies when the model has it. */
  isDeletedColumn?: string;
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
   * Signs keyset cursors: a key, or a function answering one (asked once). Without it a
   * random key of this process signs them, so a cursor fails on any other process and
   * after a restart.
   */
  cursorKey?: CursorKey;
  /** Most values an `in`/`not_in` filter may list (default 1000). */
  maxListSize?: number;
}

/** Options shared by every read. */
export interface ReadOptions {
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
export interface WriteOptions {
  /** Allow the filters to match several rows (otherwise more than one is a 400). */
  allowMultiple?: boolean;
}

/** Options of delete. */
export interface DeleteOptions extends WriteOptions {
  /** Extra columns written by a soft delete (for example `deleted_by`). */
  values?: Row;
}

/** Options of update. */
export interface UpdateOptions extends WriteOptions {
  filters: Filters;
  /** Re-read and answer the updated row(s) in this shape. */
  schemaToSelect?: SchemaLike;
}

type Row = Record<string, unknown>;

// Most reads join nothing: one shared, frozen empty list.
const NO_JOINS = Object.freeze([]) as unknown as ResolvedJoin[];

/**
 * Data access for one objection model. Every method takes
 * the knex instance (or transaction) to run on, so the caller owns sessions.
 */
export class CrudRepository<M extends ModelClass = ModelClass> {
  readonly model: M;
  readonly info: ModelInfo;
  protected readonly ctx: ReadContext;
  protected readonly options: RepositoryOptions;
  private readonly joinCache = new WeakMap<JoinConfig[], ResolvedJoin[]>();

  constructor(model: M, options: RepositoryOptions = {}) {
    this.model = model;
    this.info = modelInfo(model);
    this.options = options;
    const flag = options.isDeletedColumn ?? 'is_deleted';
    this.ctx = {
      info: this.info,
      deletedFlag: this.info.columns.has(flag) ? flag : undefined,
      customFilters: options.customFilters ?? {},
      maxListSize: options.maxListSize ?? 1000,
    };
  }

  /** The custom filter operators this repository applies (its `customFilters`). */
  get customFilters(): Record<string, CustomFilter> {
    return this.ctx.customFilters;
  }

  /** Whether deletes are soft (the model has the deletion flag column). */
  get softDelete(): boolean {
    return this.ctx.deletedFlag !== undefined;
  }

  /** Inserts a row and answers it as stored (re-read in the same transaction). */
  async create(db: Knex, data: Row, options: ReadOptions = {}): Promise<Row> {
    const values = writeValues(this.info, data);
    const stamp = this.options.createdAtColumn === undefined ? 'created_at' : this.options.createdAtColumn;
    if (stamp !== null && this.info.columns.get(stamp)?.kind === 'datetime' && !(stamp in values)) values[stamp] = new Date();
    return this.guard(() =>
      db.transaction(async (trx) => {
        const id = writesDirectly(this.info) && plainValues(this.info, values)
          ? await insertDirectly(trx, this.info, values)
          : ((await this.model.query(trx).insert(this.model.fromJson(values, { skipValidation: true }) as any)) as any).$id();
        const row = await this.get(trx, { [this.info.idColumn]: id }, { ...options, includeDeleted: true });
        return row as Row;
      }),
    );
  }

  /** The first row matching the filters, or null. */
  async get(db: Knex, filters: Filters = {}, options: ReadOptions = {}): Promise<Row | null> {
    const { rows, extras } = await this.read(db, this.plan(options, filters, 1), false);
    return this.shape(stripExtras(rows, extras), options)[0] ?? null;
  }

  /** Whether any row matches the filters. */
  async exists(db: Knex, filters: Filters = {}, options: Pick<ReadOptions, 'includeDeleted'> = {}): Promise<boolean> {
    const build = await startBuild(db, this.ctx, [filters]);
    const rows = await reuseCompiledSql(whereQuery(build, this.ctx, { filters, includeDeleted: options.includeDeleted }).select(db.raw('1 as one')).limit(1));
    return rows.length > 0;
  }

  /** How many rows match the filters (and the joins' conditions). */
  async count(db: Knex, filters: Filters = {}, options: Pick<ReadOptions, 'includeDeleted' | 'joinsConfig'> = {}): Promise<number> {
    const joins = this.joins(options);
    const build = await startBuild(db, this.ctx, [filters, ...joins.map((j) => j.filters)]);
    return countRows(whereQuery(build, this.ctx, { filters, joins, includeDeleted: options.includeDeleted }));
  }

  /** The rows matching the filters, sorted and windowed, without a count. */
  async select(db: Knex, filters: Filters = {}, options: Omit<ListOptions, 'filters' | 'returnTotalCount'> = {}): Promise<Row[]> {
    const { rows, extras } = await this.read(db, this.plan({ ...options, filters }), false);
    return this.shape(stripExtras(rows, extras), options);
  }

  /** A page of rows and, unless turned off, the total count of matching rows. */
  async getMulti(db: Knex, options: ListOptions = {}): Promise<{ data: Row[]; total_count?: number }> {
    const counted = options.returnTotalCount !== false;
    const { rows, extras, total } = await this.read(db, this.plan(options), counted);
    const data = this.shape(stripExtras(rows, extras), options);
    return counted ? { data, total_count: total } : { data };
  }

  /** The first row matching the filters, with its joins. */
  async getJoined(db: Knex, filters: Filters = {}, options: ReadOptions = {}): Promise<Row | null> {
    return this.get(db, filters, options);
  }

  /** A page of rows with their joins; one-to-many joins never repeat or miscount parents. */
  async getMultiJoined(db: Knex, options: ListOptions = {}): Promise<{ data: Row[]; total_count?: number }> {
    return this.getMulti(db, options);
  }

  /** A keyset page: `{ data, next_cursor }`, next_cursor null exactly when no row follows. */
  async getMultiByCursor(db: Knex, options: CursorOptions = {}): Promise<{ data: Row[]; next_cursor: string | null }> {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw ValidationError.of(['query', 'limit'], 'limit must be between 1 and 1000', 'value_error');
    const specs = sortSpecs(
      this.info,
      options.sortColumns ?? options.sortColumn ?? this.info.idColumn,
      options.sortOrders ?? options.sortOrder ?? 'asc',
    );
    const signing = cursorKeyOf(this.options.cursorKey);
    const key = { info: this.info, specs, key: signing instanceof Promise ? await signing : signing };
    const after = options.cursor ? decodeCursor(options.cursor, key) : undefined;
    const plan: ReadPlan = {
      ...this.plan({ ...options, sortColumns: undefined, sortOrders: undefined }),
      specs,
      limit: limit + 1,
      refine: after ? (qb, scope) => applyKeyset(qb, after, { info: this.info, specs, alias: scope.alias }) : undefined,
    };
    const { rows, extras } = await this.read(db, plan, false);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    // The cursor is made from the last row before its extra columns are stripped.
    const next = more ? encodeCursor(page[page.length - 1], key) : null;
    return { data: this.shape(stripExtras(page, extras), options), next_cursor: next };
  }

  /** Updates the matching row (or rows, with allowMultiple); 404 when none matches. */
  async update(db: Knex, data: Row, options: UpdateOptions): Promise<Row | Row[] | null> {
    const values = writeValues(this.info, data);
    const stamp = this.options.updatedAtColumn ?? 'updated_at';
    if (this.info.columns.get(stamp)?.kind === 'datetime' && !(stamp in values)) values[stamp] = new Date();
    return this.guard(() =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, options.filters, options);
        if (writesDirectly(this.info) && plainValues(this.info, values)) await patchDirectly(trx, this.info, values, ids);
        else await this.model.query(trx).patch(this.model.fromJson(values, { patch: true, skipValidation: true }) as any).whereIn(this.info.idColumn, ids as any);
        if (!options.schemaToSelect) return null;
        const rows = await this.select(trx, { [`${this.info.idColumn}__in`]: ids }, { schemaToSelect: options.schemaToSelect, includeDeleted: true });
        return options.allowMultiple ? rows : rows[0];
      }),
    );
  }

  /** Soft-deletes the matching row when the model has the flag column, else hard-deletes it. */
  async delete(db: Knex, filters: Filters, options: DeleteOptions = {}): Promise<number> {
    const { deletedFlag } = this.ctx;
    if (!deletedFlag) return this.dbDelete(db, filters, { ...options, onlyActive: true } as WriteOptions);
    const values: Row = { ...(options.values ? writeValues(this.info, options.values) : {}), [deletedFlag]: true };
    const at = this.options.deletedAtColumn ?? 'deleted_at';
    if (this.info.columns.has(at)) values[at] = new Date();
    return this.guard(() =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, filters, options);
        await reuseCompiledSql(trx(this.info.table).whereIn(this.info.idColumn, ids as any).update(values));
        return ids.length;
      }),
    );
  }

  /** Removes the matching row for good, soft-deleted or not. */
  async dbDelete(db: Knex, filters: Filters, options: WriteOptions = {}): Promise<number> {
    const includeDeleted = !(options as { onlyActive?: boolean }).onlyActive;
    return this.guard(() =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, filters, { ...options, includeDeleted });
        if (writesDirectly(this.info)) await reuseCompiledSql(trx(this.info.table).whereIn(this.info.idColumn, ids as any).del());
        else await this.model.query(trx).delete().whereIn(this.info.idColumn, ids as any);
        return ids.length;
      }),
    );
  }

  /** The ids a write will touch: 404 when none, 400 when several without allowMultiple. */
  protected async matchingIds(db: Knex, filters: Filters, options: WriteOptions & { includeDeleted?: boolean }): Promise<unknown[]> {
    const build = await startBuild(db, this.ctx, [filters]);
    const qb = whereQuery(build, this.ctx, { filters, includeDeleted: options.includeDeleted }).select(`${this.info.table}.${this.info.idColumn}`);
    if (!options.allowMultiple) qb.limit(2);
    const ids = ((await reuseCompiledSql(qb)) as Row[]).map((r) => r[this.info.idColumn]);
    if (ids.length === 0) throw new NotFoundError('Item not found');
    if (ids.length > 1 && !options.allowMultiple) {
      throw new BadRequestError('More than one record matches; pass allowMultiple to change them all');
    }
    return ids;
  }

  /** Resolved joins of a read, cached per joinsConfig array. */
  protected joins(options: ReadOptions): ResolvedJoin[] {
    if (options.joinModel) {
      const byName = typeof options.joinModel === 'string';
      return resolveJoins(this.info, [{
        relation: byName ? (options.joinModel as string) : undefined,
        model: byName ? undefined : (options.joinModel as ModelClass),
        joinOn: options.joinOn,
        joinPrefix: options.joinPrefix,
        schemaToSelect: options.joinSchemaToSelect,
        joinType: options.joinType,
        relationshipType: options.relationshipType,
      }]);
    }
    if (!options.joinsConfig) return NO_JOINS;
    let resolved = this.joinCache.get(options.joinsConfig);
    if (!resolved) {
      resolved = resolveJoins(this.info, options.joinsConfig);
      this.joinCache.set(options.joinsConfig, resolved);
    }
    return resolved;
  }

  /**
   * The one read path of every method: builds the plan's query, runs the rows query (and
   * the count, when asked, concurrently) and answers normalized rows with their joins.
   */
  private async read(db: Knex, plan: ReadPlan, counted: boolean): Promise<ReadResult & { total?: number }> {
    const filters = plan.joins && plan.joins.length > 0 ? [plan.filters, ...plan.joins.map((j) => j.filters)] : [plan.filters];
    const started = startBuild(db, this.ctx, filters);
    const build = started instanceof Promise ? await started : started;
    try {
      const base = whereQuery(build, this.ctx, plan);
      if (!counted) return await readRows(build, this.ctx, plan, base);
      // countRows clones `base` before readRows selects on it. Awaited together, so a failing
      // rows query never leaves the count's rejection unhandled (which ends the process).
      const counting = countRows(base);
      const [found, total] = await Promise.all([readRows(build, this.ctx, plan, base), counting]);
      return { ...found, total };
    } catch (error) {
      throw mapDatabaseError(error) ?? error;
    }
  }

  /** A read's plan from its options; a bad sort, join or window is refused here. */
  private plan(options: ListOptions, filters = options.filters, limit = options.limit): ReadPlan {
    const plan: ReadPlan = {
      filters,
      schemaToSelect: options.schemaToSelect,
      includeDeleted: options.includeDeleted,
      joins: this.joins(options),
      nestJoins: options.nestJoins,
      specs: sortSpecs(this.info, options.sortColumns, options.sortOrders),
      offset: options.offset,
      limit,
    };
    checkWindow(options.offset, limit);
    return plan;
  }

  private shape(rows: Row[], options: ReadOptions): Row[] {
    if (!options.returnAsModel) return rows;
    const schema = options.schemaToSelect;
    if (schema && !Array.isArray(schema)) return rows.map((row) => plainToInstance(schema as new () => object, row) as Row);
    return rows.map((row) => this.model.fromJson(row, { skipValidation: true }) as unknown as Row);
  }

  /** Runs a database call, turning the client's mistakes (duplicates, bad values) into HTTP errors. */
  protected async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw mapDatabaseError(error) ?? error;
    }
  }
}

function checkWindow(offset: number | undefined, limit: number | undefined): void {
  if (offset !== undefined && !(Number.isInteger(offset) && offset >= 0)) {
    throw ValidationError.of(['query', 'offset'], 'offset must be a non-negative integer', 'value_error');
  }
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw ValidationError.of(['query', 'limit'], 'limit must be a positive integer', 'value_error');
  }
}
