// A builder taken apart for the compiled-SQL cache (`compiled-sql.ts`): the key of its
// shape (table, columns, conditions, order, window: everything but the values) and its
// values in the order met. Only parts of a kind listed here are understood (plain columns
// and aggregates, basic/in/null/between/raw conditions with plain values, basic ordering,
// limit and offset, one row of plain values to insert or update, returned columns); a
// builder holding anything else answers undefined and compiles as usual.

import type { Builder, RawLike, Statement } from './knex-internals';

type Value = string | number | boolean | bigint | Date | null;

/** A builder taken apart: its shape's key, its values, and (for the probe) its parts rebuilt. */
export interface Described {
  key: string;
  values: Value[];
  statements?: Statement[];
  single?: Record<string, unknown>;
}

const METHODS = new Set(['select', 'first', 'insert', 'update', 'del']);
// Frozen column lists seen before, by identity, with the short id that stands for them in keys.
const columnLists = new WeakMap<readonly unknown[], { id: string; length: number }>();
let listIds = 0;
// Marks a value's place in the probe compile; no real value looks like it.
const MARKER = '\u0000crudsmith-probe\u0000';

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
export function describe(builder: Builder, probe: boolean): Described | undefined {
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

/** The value index a probe marker stands for, or -1 for any other binding. */
export function markerIndex(binding: unknown): number {
  if (typeof binding !== 'string' || !binding.startsWith(MARKER) || !binding.endsWith(MARKER)) return -1;
  const index = Number(binding.slice(MARKER.length, -MARKER.length));
  return Number.isInteger(index) ? index : -1;
}
