import { storedDates } from './sqlite-datetime';
import type { Knex } from 'knex';
import { Model } from 'objection';
import { reuseCompiledSql } from './compiled-sql';
import { dialectOf } from './dialect';
import { isComposite, keyOf, whereKeys, type RowKey } from './row-key';
import type { ModelClass, ModelInfo } from '../model/model-info';

// Writes go through objection so that a model's hooks and mappers run. For a model that
// has none, objection only wraps the row in a model instance and hands it to knex: the
// same statement sent through knex directly is about 70–80 µs cheaper per write. These
// are everything of objection's that could change what an insert, patch or delete sends
// or does around it; a model (or a base class of it) overriding any one of them keeps
// objection.
const INSTANCE_MEMBERS = [
  '$beforeInsert',
  '$afterInsert',
  '$beforeUpdate',
  '$afterUpdate',
  '$beforeDelete',
  '$afterDelete',
  '$beforeValidate',
  '$validate',
  '$afterValidate',
  '$parseJson',
  '$formatJson',
  '$setJson',
  '$toDatabaseJson',
  '$formatDatabaseJson',
  '$omitFromDatabaseJson',
  '$setDatabaseJson',
  '$parseDatabaseJson',
  '$id',
] as const;
const STATIC_MEMBERS = [
  'beforeInsert',
  'afterInsert',
  'beforeUpdate',
  'afterUpdate',
  'beforeDelete',
  'afterDelete',
  'query',
  'QueryBuilder',
  'fromJson',
  'ensureModel',
  'ensureModelArray',
  'getColumnNameMappers',
  'columnNameMappers',
] as const;
// A key objection would read as a field expression (`data:path`, `a.b`) is converted by it.
const PLAIN_COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const plainModels = new WeakMap<ModelClass, boolean>();

/** Whether objection would add nothing to a write of this model: no hooks, mappers or field expressions. */
export function writesDirectly(info: ModelInfo): boolean {
  let plain = plainModels.get(info.model);
  if (plain === undefined) {
    const model = info.model as unknown as Record<string, unknown> & { prototype: Record<string, unknown> };
    const base = Model as unknown as Record<string, unknown> & { prototype: Record<string, unknown> };
    plain =
      INSTANCE_MEMBERS.every((name) => model.prototype[name] === base.prototype[name]) &&
      STATIC_MEMBERS.every((name) => model[name] === base[name]) &&
      [...info.columns.keys()].every((column) => PLAIN_COLUMN.test(column));
    plainModels.set(info.model, plain);
  }
  return plain;
}

/**
 * Whether these values reach the database as they are through objection: primitives and
 * dates only (objection serialises an object or array of a JSON column itself), and, when
 * the model picks its schema's properties, only keys its schema declares.
 */
export function plainValues(info: ModelInfo, values: Record<string, unknown>): boolean {
  const picked = (info.model as unknown as { pickJsonSchemaProperties?: boolean }).pickJsonSchemaProperties
    ? (info.model.jsonSchema as { properties?: Record<string, unknown> } | undefined)?.properties
    : undefined;
  let any = false;
  for (const key in values) {
    any = true;
    const value = values[key];
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) return false;
    if (picked && !(key in picked)) return false;
  }
  // An empty insert compiles differently from objection's one-row array: leave it to objection.
  return any;
}

/**
 * Inserts one row as objection would (`returning` the id on PostgreSQL, the driver's
 * insert id elsewhere, the given id when the row names one) and answers its key (a
 * composite key is the row's own values).
 */
export async function insertDirectly(trx: Knex, info: ModelInfo, values: Record<string, unknown>): Promise<RowKey> {
  if (isComposite(info)) {
    await reuseCompiledSql(trx(info.table).insert(values));
    return keyOf(info, values);
  }
  const pg = dialectOf(trx) === 'pg';
  const query = trx(info.table).insert(values);
  if (pg) query.returning(info.idColumn);
  const [inserted] = (await reuseCompiledSql(query)) as unknown[];
  const given = values[info.idColumn];
  if (given !== undefined && given !== null && given !== '' && given !== 0) return given;
  return pg && inserted !== null && typeof inserted === 'object'
    ? (inserted as Record<string, unknown>)[info.idColumn]
    : inserted;
}

/** Updates the rows with these ids, as objection's patch would. */
export async function patchDirectly(
  trx: Knex,
  info: ModelInfo,
  values: Record<string, unknown>,
  rows: { ids: unknown[]; unchanged?: Record<string, unknown> },
): Promise<number> {
  const { ids, unchanged } = rows;
  return Number(
    await reuseCompiledSql(whereUnchanged(whereKeys(trx(info.table).update(values), info, ids), info, unchanged, trx)),
  );
}

/** Adds to a write's WHERE the column values the row must still hold (null: still empty). */
export function whereUnchanged<T extends Knex.QueryBuilder>(
  qb: T,
  info: ModelInfo,
  unchanged: Record<string, unknown> | undefined,
  db: Knex,
): T {
  if (!unchanged) return qb;
  const stored = storedDates({ ...unchanged }, db);
  for (const column in stored) {
    const ref = `${info.table}.${column}`;
    // Several values: an `If-Match` listing several tags, any of which may still hold.
    if (Array.isArray(stored[column]))
      qb.whereIn(
        ref,
        (stored[column] as unknown[]).map((value) => storedDates({ value }, db).value as Knex.Value),
      );
    else if (stored[column] === null) qb.whereNull(ref);
    else qb.where(ref, stored[column] as Knex.Value);
  }
  return qb;
}
