import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { describe, markerIndex, type Described } from './builder-shape';
import { methodOf, QUERY_UID, type Builder, type CompiledQuery } from './knex-internals';
import { namePreparedStatements } from './pg-statements';
import { FIXED_SQL } from './query-hook';
import { reusePreparedStatements } from './sqlite-statements';

// knex compiles every query from scratch, and compiling (quoting each identifier, joining
// the clauses) costs more than everything else a read does in process. The queries the
// repository sends come in few shapes: the same table, columns, conditions, order and
// window, only the values differ. So the SQL of each shape is compiled once, and a later
// query of that shape only collects its values in the order the compiled SQL wants them.
//
// Safety: a builder is cached only when every part of it is of a kind `builder-shape.ts`
// knows; anything else compiles as usual. The first time a shape is seen it is compiled
// twice, once as is and once with a unique marker in place of each value, and it is kept
// only when both give the same SQL and every marker shows up exactly once among the
// bindings (which also gives their order).

/** A shape's compiled SQL, and for each binding the index of the value it takes. */
interface Shape {
  method: string;
  sql: string;
  order: number[];
  /** What knex's runner reads besides the SQL: the returned columns of an insert or update. */
  returning?: unknown;
}

// Per knex configuration (a transaction's client shares its knex's config object).
const shapes = new WeakMap<object, Map<string, Shape | null>>();
// Enough for every read shape of a large app; a shape beyond it simply compiles as usual.
const MAX_SHAPES = 1000;
const STANDARD_KEYS = new Set(['method', 'options', 'timeout', 'cancelOnTimeout', 'bindings', QUERY_UID, 'sql']);
const PROCESS_ID = randomBytes(6).toString('base64url');
let queries = 0;

/** Makes a select builder reuse the SQL compiled for earlier selects of the same shape. */
export function reuseCompiledSql<T extends Knex.QueryBuilder>(qb: T): T {
  (qb as unknown as Builder).toSQL = compileCached;
  return qb;
}

function compileCached(this: Builder, method?: string, tz?: unknown): CompiledQuery {
  const original = Object.getPrototypeOf(this).toSQL as Builder['toSQL'];
  if ((method !== undefined && method !== methodOf(this)) || tz !== undefined) return original.call(this, method, tz);
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

/** The query object knex's runner expects, as its compiler would make it. */
class CachedQuery implements CompiledQuery {
  [key: string]: unknown;
  method: string;
  options = {};
  timeout = undefined;
  cancelOnTimeout = undefined;
  bindings: unknown[];
  [QUERY_UID]: string;
  sql: string;

  constructor(client: Builder['client'], shape: Shape, bindings: unknown[]) {
    this.method = shape.method;
    this.bindings = bindings;
    this[QUERY_UID] = `${PROCESS_ID}.${++queries}`;
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
