import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { namePreparedStatements } from './pg-statements';
import { FIXED_SQL } from './query-hook';
import { reusePreparedStatements } from './sqlite-statements';

// knex compiles every query from scratch, and compiling (quoting each identifier, joining
// the clauses) costs more than everything else a read does in process. The queries the
// repository sends come in few shapes: the same table, columns, conditions, order and
// window, only the values differ. So the SQL of each shape is compiled once, and a later
// query of that shape only collects its values in the order the compiled SQL wants them.
//
// Safety: a builder is cached only when every part of it is of a kind listed here
// (plain columns and aggregates, basic/in/null/between/raw conditions with plain values,
// basic ordering, limit and offset, one row of plain values to insert or update, returned
// columns); anything else compiles as usual. The first time a
// shape is seen it is compiled twice, once as is and once with a unique marker in place
// of each value, and it is kept only when both give the same SQL and every marker shows
// up exactly once among the bindings (which also gives their order).

type Value = string | number | boolean | bigint | Date | null;

interface Statement {
  grouping: string;
  type?: string;
  value?: unknown;
  [key: string]: unknown;
}

interface RawLike {
  isRawInstance: true;
  sql: string;
  bindings?: unknown;
  [key: string]: unknown;
}

interface Builder {
  client: {
    config: object;
    raw(sql: string, bindings: unknown[]): RawLike;
    positionBindings(sql: string): string;
    prepBindings(b: unknown[]): unknown[];
  };
  _method: string;
  _single: Record<string, unknown>;
  _statements: Statement[];
  _comments?: unknown[];
  _options?: unknown[];
  _queryContext?: unknown;
  _timeout?: number;
  toSQL(method?: string, tz?: unknown): CompiledQuery;
}

interface CompiledQuery {
  method: string;
  sql: string;
  bindings: unknown[];
  [key: string]: unknown;
}

/** A shape's compiled SQL, and for each binding the index of the value it takes. */
interface Shape {
  method: string;
  sql: string;
  order: number[];
  /** What knex's runner reads besides the SQL: the returned columns of an insert or update. */
  returning?: unknown;
}

/** A builder taken apart: its shape's key, its values, and (for the probe) its parts rebuilt. */
interface Described {
  key: string;
  values: Value[];
  statements?: Statement[];
  single?: Record<string, unknown>;
}

// Per knex configuration (a transaction's client shares its knex's config object).
const shapes = new WeakMap<object, Map<string, Shape | null>>();
// Enough for every read shape of a large app; a shape beyond it simply compiles as usual.
const MAX_SHAPES = 1000;
const METHODS = new Set(['select', 'first', 'insert', 'update', 'del']);
const STANDARD_KEYS = new Set(['method', 'options', 'timeout', 'cancelOnTimeout', 'bindings', '__knexQueryUid', 'sql']);
const PROCESS_ID = randomBytes(6).toString('base64url');
let queries = 0;
// Frozen column lists seen before, by identity, with the short id that stands for them in keys.
const columnLists = new WeakMap<readonly unknown[], { id: string; length: number }>();
let listIds = 0;
// Marks a value's place in the probe compile; no real value looks like it.
const MARKER = '\u0000crudsmith-probe\u0000';

/** Makes a select builder reuse the SQL compiled for earlier selects of the same shape. */
export function reuseCompiledSql<T extends Knex.QueryBuilder>(qb: T): T {
  (qb as unknown as Builder).toSQL = compileCached;
  return qb;
}

function compileCached(this: Builder, method?: string, tz?: unknown): CompiledQuery {
  const original = Object.getPrototypeOf(this).toSQL as Builder['toSQL'];
  if ((method !== undefined && method !== this._method) || tz !== undefined) return original.call(this, method, tz);
  const described = describe(this, false);
  if (!described) return original.call(this);
  let byShape = shapes.get(this.client.config);
  if (!byShape) shapes.set(this.client.config, (byShape = new Map()));
  const shape = byShape.get(described.key);
  if (shape === null) return original.call(this);
  if (shape === undefined) {
    const compiled = original.call(this);
    if (byShape.size < MAX_SHAPES) byShape.set(described.key, learn(this, described, compiled));
    return compiled;
  }
  const bindings = new Array<unknown>(shape.order.length);
  for (let at = 0; at < bindings.length; at++) bindings[at] = described.values[shape.order[at]];
  return new CachedQuery(this.client, shape, bindings);
}

/** Compiles a probe of the builder with markers for values, and keeps the shape if it is safe. */
function learn(builder: Builder, described: Described, compiled: CompiledQuery): Shape | null {
  if (Object.keys(compiled).some((key) => !STANDARD_KEYS.has(key) && key !== 'returning')) return null;
  if ('returning' in compiled && !isStructural(compiled.returning)) return null;
  const probe = describe(builder, true);
  if (!probe) return null;
  const copy = Object.create(Object.getPrototypeOf(builder)) as Builder;
  Object.assign(copy, builder, { _statements: probe.statements, _single: probe.single });
  delete (copy as Partial<Builder>).toSQL;
  const probed = copy.toSQL();
  if (probed.sql !== compiled.sql || probed.method !== compiled.method) return null;
  if (probed.bindings.length !== probe.values.length) return null;
  const order = probed.bindings.map(markerIndex);
  if (new Set(order).size !== order.length || order.includes(-1)) return null;
  // The real compile must agree value for value.
  if (order.some((i, at) => compiled.bindings[at] !== described.values[i])) return null;
  return 'returning' in compiled
    ? { method: compiled.method, sql: compiled.sql, order, returning: compiled.returning }
    : { method: compiled.method, sql: compiled.sql, order };
}

/** A compiled query's extra value that depends on the shape only: undefined, a string or strings. */
function isStructural(value: unknown): boolean {
  return (
    value === undefined ||
    typeof value === 'string' ||
    (Array.isArray(value) && value.every((v) => typeof v === 'string'))
  );
}

/** The value index a probe marker stands for, or -1 for any other binding. */
function markerIndex(binding: unknown): number {
  if (typeof binding !== 'string' || !binding.startsWith(MARKER) || !binding.endsWith(MARKER)) return -1;
  const index = Number(binding.slice(MARKER.length, -MARKER.length));
  return Number.isInteger(index) ? index : -1;
}

/** The query object knex's runner expects, as its compiler would make it. */
class CachedQuery implements CompiledQuery {
  [key: string]: unknown;
  method: string;
  options = {};
  timeout = undefined;
  cancelOnTimeout = undefined;
  bindings: unknown[];
  __knexQueryUid: string;
  sql: string;

  constructor(client: Builder['client'], shape: Shape, bindings: unknown[]) {
    this.method = shape.method;
    this.bindings = bindings;
    this.__knexQueryUid = `${PROCESS_ID}.${++queries}`;
    this.sql = shape.sql;
    if ('returning' in shape) this.returning = Array.isArray(shape.returning) ? [...shape.returning] : shape.returning;
    clients.set(this, client);
    reusePreparedStatements(client);
    namePreparedStatements(client);
  }

  /** The SQL with the dialect's own placeholders, as knex's compiled query offers it. */
  toNative(): { sql: string; bindings: unknown[] } {
    const client = clients.get(this)!;
    return { sql: client.positionBindings(this.sql), bindings: client.prepBindings(this.bindings) };
  }
}

// On the prototype, not the object: knex copies a query's own properties (symbols too) into its events.
Object.defineProperty(CachedQuery.prototype, FIXED_SQL, { value: true });

// The client each cached query belongs to, kept off the object: knex copies a query's own
// properties into its 'query' events, and a client there would be noise (and a cycle).
const clients = new WeakMap<CachedQuery, Builder['client']>();

/**
 * One walk over a builder: the shape's key as it grows, the values in the order met, and
 * for the probe, the statements and window rebuilt with markers. A class rather than
 * closures: a read walks its builder on every request.
 */
class Walk {
  key: string;
  readonly values: Value[] = [];
  readonly statements: Statement[] | undefined;
  constructor(
    method: string,
    readonly probe: boolean,
  ) {
    this.key = method;
    this.statements = probe ? [] : undefined;
  }

  /** Records a value; answers what the probe puts in its place. */
  take(value: unknown): unknown {
    this.values.push(value as Value);
    return this.probe ? `${MARKER}${this.values.length - 1}${MARKER}` : value;
  }

  keep(statement: Statement): void {
    this.statements?.push(statement);
  }
}

/**
 * Takes a builder apart into its shape's key and its values, or answers undefined when it
 * holds anything this cache does not know. With `probe`, also rebuilds its statements and
 * window with a unique marker in place of each value.
 */
function describe(builder: Builder, probe: boolean): Described | undefined {
  if (!METHODS.has(builder._method)) return undefined;
  if (
    builder._comments?.length ||
    builder._options?.length ||
    builder._queryContext !== undefined ||
    builder._timeout !== undefined
  )
    return undefined;
  const walk = new Walk(builder._method, probe);
  const single = probe ? { ...builder._single } : undefined;
  for (const name in builder._single) {
    const value = builder._single[name];
    if (name === 'limit' || name === 'offset') {
      if (value === undefined) continue;
      if (typeof value !== 'number') return undefined;
      walk.key += `\u0001${name}:${value === 0 ? 0 : 1}`;
      if (value !== 0 || name === 'limit') {
        const replaced = walk.take(value);
        if (single) single[name] = replaced;
      }
    } else if (name === 'insert' || name === 'update') {
      // One row's values (an insert of several rows, or of raw values, compiles as usual).
      if (!isRecordOfValues(value)) return undefined;
      walk.key += `\u0001${name}:`;
      const replaced: Record<string, unknown> = {};
      for (const column in value) {
        walk.key += `${column}=${classOf(value[column])}\u0003`;
        replaced[column] = walk.take(value[column]);
      }
      if (single) single[name] = replaced;
    } else if (name === 'returning') {
      if (typeof value !== 'string' && !(Array.isArray(value) && value.every((column) => typeof column === 'string')))
        return undefined;
      walk.key += `\u0001${name}:${JSON.stringify(value)}`;
    } else if (name === 'skipBinding') {
      // knex writes a value into the SQL instead of binding it when asked (`limit(n, { skipBinding: true })`).
      for (const skipped in value as object) if ((value as Record<string, unknown>)[skipped]) return undefined;
    } else if (value === undefined || typeof value === 'string' || typeof value === 'boolean') {
      walk.key += `\u0001${name}:${String(value)}`;
    } else return undefined;
  }
  for (const statement of builder._statements) if (!addStatement(walk, statement)) return undefined;
  return { key: walk.key, values: walk.values, statements: walk.statements, single };
}

/** Adds one statement to the walk (its flags to the key, its values taken); false when unknown. */
function addStatement(walk: Walk, statement: Statement): boolean {
  const { grouping, type, value } = statement;
  walk.key += `\u0001${grouping}/${String(type)}`;
  for (const name in statement) {
    if (name === 'grouping' || name === 'type' || name === 'value') continue;
    const flag = statement[name];
    if (flag !== undefined && flag !== null && typeof flag !== 'string' && typeof flag !== 'boolean') return false;
    walk.key += `\u0002${name}=${String(flag)}`;
  }
  walk.key += '\u0002';
  if (grouping === 'columns' && type === undefined) {
    if (!Array.isArray(value)) return false;
    const known = columnLists.get(value);
    if (known !== undefined && known.length === value.length) {
      walk.key += known.id;
    } else {
      for (const column of value) {
        if (typeof column === 'string') walk.key += `${column}\u0003`;
        else if (isPlainRaw(column)) walk.key += `raw:${column.sql}\u0003`;
        else return false;
      }
      // A list the repository reuses (its cached selection) is named by a short id next
      // time: shorter keys are cheaper to look up. Lists are never changed in place there.
      if (Object.isFrozen(value) && value.every((column) => typeof column === 'string')) {
        columnLists.set(value, { id: `#${++listIds}`, length: value.length });
      }
    }
    walk.keep(statement);
    return true;
  }
  if (grouping === 'columns' && type === 'aggregate') {
    if (!isStringRecord(value)) return false;
    walk.key += JSON.stringify(value);
    walk.keep(statement);
    return true;
  }
  if (grouping === 'order' && type === 'orderByBasic') {
    if (typeof value !== 'string') return false;
    walk.key += value;
    walk.keep(statement);
    return true;
  }
  if (grouping !== 'where') return false;
  switch (type) {
    case 'whereNull':
      walk.keep(statement);
      return true;
    case 'whereBasic': {
      if (statement.asColumn || !isValue(value)) return false;
      walk.key += classOf(value);
      const replaced = walk.take(value);
      if (walk.probe) walk.keep({ ...statement, value: replaced });
      return true;
    }
    case 'whereIn':
    case 'whereBetween': {
      if (!Array.isArray(value) || typeof statement.column !== 'string') return false;
      const replaced: unknown[] = [];
      for (const item of value) {
        if (!isValue(item)) return false;
        walk.key += `${classOf(item)},`;
        replaced.push(walk.take(item));
      }
      if (walk.probe) walk.keep({ ...statement, value: replaced });
      return true;
    }
    case 'whereRaw':
      return addRaw(walk, statement);
    default:
      return false;
  }
}

// knex's placeholders in raw SQL: `\?` is a literal question mark, `??` an identifier
// (written into the SQL, so part of the shape), `?` a value.
const PLACEHOLDER = /\\\?|\?\??/g;

function addRaw(walk: Walk, statement: Statement): boolean {
  const raw = statement.value as RawLike;
  if (!raw || raw.isRawInstance !== true || typeof raw.sql !== 'string') return false;
  if (raw._wrappedBefore !== undefined || raw._wrappedAfter !== undefined || raw._timeout !== undefined) return false;
  const bindings = raw.bindings ?? [];
  if (!Array.isArray(bindings)) return false;
  const marks = raw.sql.match(PLACEHOLDER)?.filter((mark) => mark !== '\\?') ?? [];
  if (marks.length !== bindings.length) return false;
  walk.key += `${raw.sql}\u0002`;
  const replaced: unknown[] = [];
  for (let i = 0; i < marks.length; i++) {
    const binding = bindings[i];
    if (marks[i] === '??') {
      // An identifier is written into the SQL: part of the shape, not a value.
      if (typeof binding !== 'string') return false;
      walk.key += `${binding}\u0003`;
      replaced.push(binding);
    } else {
      if (!isValue(binding)) return false;
      walk.key += `${classOf(binding)}\u0003`;
      replaced.push(walk.take(binding));
    }
  }
  if (walk.probe)
    walk.keep({
      ...statement,
      value: Object.assign(Object.create(Object.getPrototypeOf(raw)), raw, { bindings: replaced }),
    });
  return true;
}

function isPlainRaw(value: unknown): value is RawLike {
  const raw = value as RawLike | null;
  return Boolean(
    raw &&
    raw.isRawInstance === true &&
    (raw.bindings === undefined || (Array.isArray(raw.bindings) && raw.bindings.length === 0)),
  );
}

function isRecordOfValues(value: unknown): value is Record<string, Value> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.values(value).every(isValue);
}

function isStringRecord(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** A value knex binds as is: a string, a number, a boolean, a bigint, a Date or null. */
function isValue(value: unknown): value is Value {
  return value === null || value instanceof Date || ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
}

// The kind of a value is part of the shape (and so is whether it is falsy), in case a
// dialect writes SQL that depends on it.
function classOf(value: Value): string {
  if (value === null) return 'null';
  if (value instanceof Date) return 'date';
  return `${typeof value}${value ? 1 : 0}`;
}
