import type { Knex } from 'knex';
import { plainToInstance } from 'class-transformer';
import { ConfigurationError } from '../errors/configuration-error';
import { MultipleRowsError, ValidationError } from '../errors/http-error';
import { rethrowMapped } from '../errors/database-error';
import { reuseCompiledSql } from './compiled-sql';
import { applyKeyset, cursorKeyOf, decodeCursor, encodeCursor } from './cursor';
import type { Filters } from './filters';
import { resolveJoins, type JoinConfig, type ResolvedJoin } from './joins';
import { modelInfo, type ModelClass, type ModelInfo } from '../model/model-info';
import {
  countRows,
  readRows,
  startBuild,
  stripExtras,
  whereQuery,
  type ReadContext,
  type ReadPlan,
  type ReadResult,
} from './read-query';
import type { CustomFilter } from './operators';
import type { CursorOptions, ListOptions, ReadOptions, RepositoryOptions } from './repository-options';
import { indexedOrder } from './list-order';
import { readPageAndCount } from './page-and-count';
import { relationshipCounts } from './relationship-counts';
import { sortSpecs } from './sort';
import { onReader } from './replicas';
import { dialectOf } from './dialect';
import { storedDatetime } from './sqlite-datetime';
import { ACCESS_KEY, ownMetadata } from '../model/declarations';
import { checkPolicy, effectivePolicy, type EffectivePolicy } from '../access/effective';
import type { AccessPolicy } from '../access/policy';
import type { Principal } from '../http/principal';
import { scopedRead, stripHidden, type ScopedRead } from '../access/scoped-read';

type Row = Record<string, unknown>;

// Most reads join nothing: one shared, frozen empty list.
const NO_JOINS = Object.freeze([]) as unknown as ResolvedJoin[];

/**
 * The reads of one objection model: one row, pages, keyset pages, counts, with joins,
 * relationship counts and, given a principal, the access policy's scope. Every method
 * takes the knex instance (or transaction) to run on, so the caller owns sessions.
 * `CrudRepository` adds the writes.
 */
export class ReadRepository<M extends ModelClass = ModelClass> {
  readonly model: M;
  readonly info: ModelInfo;
  protected readonly ctx: ReadContext;
  protected readonly options: RepositoryOptions;
  private readonly joinCache = new WeakMap<JoinConfig[], ResolvedJoin[]>();
  /** The model's access policy (the `access` option, else its `@Access`), applied to calls given a principal. */
  readonly policy?: EffectivePolicy;

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
    const declared = options.access ?? ownMetadata<AccessPolicy>(ACCESS_KEY, model);
    if (declared) {
      checkPolicy(this.info, declared);
      this.policy = effectivePolicy(declared);
    }
  }

  /** The custom filter operators this repository applies (its `customFilters`). */
  get customFilters(): Record<string, CustomFilter> {
    return this.ctx.customFilters;
  }

  /** Whether deletes are soft (the model has the deletion flag column). */
  get softDelete(): boolean {
    return this.ctx.deletedFlag !== undefined;
  }

  /** The model, deletion flag and operators the data-layer steps share (bulk writes build on it). */
  get readContext(): ReadContext {
    return this.ctx;
  }

  /**
   * The first row matching the filters, or null; with `oneOrNone`, a MultipleRowsError
   * (400) when more than one matches.
   */
  async get(db: Knex, filters: Filters = {}, options: ReadOptions & { oneOrNone?: boolean } = {}): Promise<Row | null> {
    const access = this.scoped('read', options, filters);
    const plan = this.plan(options, access?.filters ?? filters, options.oneOrNone ? 2 : 1);
    const { rows, extras } = await this.read(db, plan, false, access);
    if (rows.length > 1) throw new MultipleRowsError(`More than one ${this.info.model.name} matches the filters`);
    return this.shape(this.answered(stripExtras(rows, extras), access, plan), options)[0] ?? null;
  }

  /** A read's scope under the policy when the call names a principal (401/403 here), else undefined. */
  protected scoped(op: 'read' | 'list', options: ReadOptions, filters: Filters = {}): ScopedRead | undefined {
    if (options.principal === undefined) return undefined;
    return scopedRead(this.policy, op, { info: this.info, principal: options.principal, filters });
  }

  protected answered(rows: Row[], access: ScopedRead | undefined, plan: ReadPlan): Row[] {
    return access ? stripHidden(rows, access, { joins: plan.joins ?? NO_JOINS, nest: plan.nestJoins }) : rows;
  }

  /** Whether any row matches the filters. */
  exists(primary: Knex, filters: Filters = {}, options: Pick<ReadOptions, 'includeDeleted'> = {}): Promise<boolean> {
    return onReader(primary, (db) => this.existsOn(db, filters, options));
  }

  protected async existsOn(db: Knex, filters: Filters, options: Pick<ReadOptions, 'includeDeleted'>): Promise<boolean> {
    const build = await startBuild(db, this.ctx, [filters]);
    const rows = await reuseCompiledSql(
      whereQuery(build, this.ctx, { filters, includeDeleted: options.includeDeleted })
        .select(db.raw('1 as one'))
        .limit(1),
    );
    return rows.length > 0;
  }

  /** How many rows match the filters (and the joins' conditions). */
  count(
    primary: Knex,
    filters: Filters = {},
    options: Pick<ReadOptions, 'includeDeleted' | 'joinsConfig' | 'principal'> = {},
  ): Promise<number> {
    return onReader(primary, (db) => this.countOn(db, filters, options));
  }

  protected async countOn(
    db: Knex,
    given: Filters,
    options: Pick<ReadOptions, 'includeDeleted' | 'joinsConfig' | 'principal'>,
  ): Promise<number> {
    const joins = this.joins(options);
    const access = this.scoped('list', options, given);
    const filters = access?.filters ?? given;
    const build = await startBuild(db, this.ctx, [filters, ...joins.map((j) => j.filters)]);
    if (access) build.relatedRows = access.related.rows;
    return countRows(whereQuery(build, this.ctx, { filters, joins, includeDeleted: options.includeDeleted }));
  }

  /**
   * A subquery of the keys, as text, of the rows the principal may read (deleted ones too):
   * a statement over another table that names this model's rows by key (a log, say) keeps
   * to them with `whereIn(column, keys)`, in the one statement. A single-column key only.
   * (Wrapped in an object: a query builder is thenable, so a promise of one would run it.)
   */
  async readableKeys(db: Knex, principal: Principal | null): Promise<{ keys: Knex.QueryBuilder }> {
    const { info } = this;
    if (info.idColumns.length !== 1)
      throw new ConfigurationError(`readableKeys needs a single-column key; ${info.model.name} has several`);
    const access = this.scoped('read', { principal });
    const filters = access?.filters ?? {};
    const build = await startBuild(db, this.ctx, [filters]);
    if (access) build.relatedRows = access.related.rows;
    const text = dialectOf(db) === 'mysql' ? 'CHAR' : 'TEXT';
    const keys = whereQuery(build, this.ctx, { filters, includeDeleted: true }).select(
      db.raw(`CAST(?? AS ${text})`, [`${info.table}.${info.idColumn}`]),
    );
    return { keys };
  }

  /** The rows matching the filters, sorted and windowed, without a count. */
  async select(
    db: Knex,
    filters: Filters = {},
    options: Omit<ListOptions, 'filters' | 'returnTotalCount'> = {},
  ): Promise<Row[]> {
    const access = this.scoped('list', options, filters);
    const plan = this.plan({ ...options, filters: access?.filters ?? filters });
    const { rows, extras } = await this.read(db, plan, false, access);
    return this.shape(this.answered(stripExtras(rows, extras), access, plan), options);
  }

  /** A page of rows and, unless turned off, the total count of matching rows. */
  async getMulti(db: Knex, options: ListOptions = {}): Promise<{ data: Row[]; total_count?: number }> {
    const counted = options.returnTotalCount !== false;
    const access = this.scoped('list', options, options.filters);
    const plan = this.plan({ ...options, filters: access?.filters ?? options.filters });
    const { rows, extras, total } = await this.read(db, plan, counted, access);
    const data = this.shape(this.answered(stripExtras(rows, extras), access, plan), options);
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
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw ValidationError.of(['query', 'limit'], 'limit must be between 1 and 1000', 'value_error');
    const specs = sortSpecs(
      this.info,
      options.sortColumns ?? options.sortColumn ?? this.info.idColumn,
      options.sortOrders ?? options.sortOrder ?? 'asc',
    );
    const signing = cursorKeyOf(this.options.cursorKey);
    const key = { info: this.info, specs, key: signing instanceof Promise ? await signing : signing };
    const after = options.cursor
      ? decodeCursor(options.cursor, key).map((value) => storedDatetime(value, dialectOf(db)))
      : undefined;
    const access = this.scoped('list', options, options.filters);
    const plan: ReadPlan = {
      ...this.plan({
        ...options,
        filters: access?.filters ?? options.filters,
        sortColumns: undefined,
        sortOrders: undefined,
      }),
      specs,
      limit: limit + 1,
      refine: after ? (qb, scope) => applyKeyset(qb, after, { info: this.info, specs, alias: scope.alias }) : undefined,
    };
    const { rows, extras } = await this.read(db, plan, false, access);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    // The cursor is made from the last row before its extra (and hidden) columns are stripped.
    const next = more ? encodeCursor(page[page.length - 1], key) : null;
    return { data: this.shape(this.answered(stripExtras(page, extras), access, plan), options), next_cursor: next };
  }

  /** A read's joins and whether they nest, as hidden fields are stripped from them. */
  protected joined(options: ReadOptions): { joins: ResolvedJoin[]; nest?: boolean } {
    return { joins: this.joins(options), nest: options.nestJoins };
  }

  /** Resolved joins of a read, cached per joinsConfig array. */
  protected joins(options: ReadOptions): ResolvedJoin[] {
    if (options.joinModel) {
      if (options.joinsConfig)
        throw new ConfigurationError('joinModel and joinsConfig are two ways to ask for joins: pass one of them');
      const byName = typeof options.joinModel === 'string';
      return resolveJoins(this.info, [
        {
          relation: byName ? (options.joinModel as string) : undefined,
          model: byName ? undefined : (options.joinModel as ModelClass),
          joinOn: options.joinOn,
          joinPrefix: options.joinPrefix,
          schemaToSelect: options.joinSchemaToSelect,
          joinType: options.joinType,
          relationshipType: options.relationshipType,
        },
      ]);
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
  protected read(
    db: Knex,
    plan: ReadPlan,
    counted: boolean,
    access?: ScopedRead,
  ): Promise<ReadResult & { total?: number }> {
    return onReader(db, (reader) => this.readOn(reader, { plan, counted, access }));
  }

  protected async readOn(
    db: Knex,
    { plan, counted, access }: { plan: ReadPlan; counted: boolean; access?: ScopedRead },
  ): Promise<ReadResult & { total?: number }> {
    const filters =
      plan.joins && plan.joins.length > 0 ? [plan.filters, ...plan.joins.map((j) => j.filters)] : [plan.filters];
    const started = startBuild(db, this.ctx, filters);
    const build = started instanceof Promise ? await started : started;
    if (access) build.relatedRows = access.related.rows;
    try {
      const judged = indexedOrder(db, this.ctx, plan, counted);
      const { plan: read, onePass } = judged instanceof Promise ? await judged : judged;
      const base = whereQuery(build, this.ctx, read);
      if (!counted) return await readRows(build, this.ctx, read, base);
      if (onePass) return await readPageAndCount(build, this.ctx, read, base);
      // A transaction has one connection, which takes one statement at a time (pg queues a
      // second one, a use it deprecates): the count follows the rows there.
      if (db.isTransaction) {
        const counted = base.clone();
        const found = await readRows(build, this.ctx, read, base);
        return { ...found, total: await countRows(counted) };
      }
      // countRows clones `base` before readRows selects on it. Awaited together, so a failing
      // rows query never leaves the count's rejection unhandled (which ends the process).
      const counting = countRows(base);
      const [found, total] = await Promise.all([readRows(build, this.ctx, read, base), counting]);
      return { ...found, total };
    } catch (error) {
      rethrowMapped(error);
    }
  }

  /** A read's plan from its options; a bad sort, join or window is refused here. */
  protected plan(options: ListOptions, filters = options.filters, limit = options.limit): ReadPlan {
    const plan: ReadPlan = {
      filters,
      schemaToSelect: options.schemaToSelect,
      includeDeleted: options.includeDeleted,
      joins: this.joins(options),
      counts: options.relationshipCounts ? relationshipCounts(this.info, options.relationshipCounts) : undefined,
      nestJoins: options.nestJoins,
      specs: sortSpecs(this.info, options.sortColumns, options.sortOrders),
      offset: options.offset,
      limit,
    };
    checkWindow(options.offset, limit);
    return plan;
  }

  protected shape(rows: Row[], options: ReadOptions): Row[] {
    if (!options.returnAsModel) return rows;
    const schema = options.schemaToSelect;
    if (schema && !Array.isArray(schema))
      return rows.map((row) => plainToInstance(schema as new () => object, row) as Row);
    return rows.map((row) => this.model.fromJson(row, { skipValidation: true }) as unknown as Row);
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
