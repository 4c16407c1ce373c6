import type { Knex } from 'knex';
import { reuseCompiledSql } from './compiled-sql';
import { dialectOf } from './dialect';
import { pinsKey } from './row-key';
import type { Filters } from './filters';
import type { ModelInfo } from '../model/model-info';
import { normalizeRow } from './normalize';
import { startBuild, whereQuery, type ReadContext } from './read-query';

// A write of one row needs no read before it: the conditions that would pick its id (the
// id, the row-level scope, the soft-delete flag) go in the write's own WHERE, and the
// number of rows it touched says whether the row was there (404 when none). PostgreSQL
// and SQLite answer the written row with RETURNING; knex gives MariaDB no RETURNING, so
// there a row to answer is read once after the write.

type Row = Record<string, unknown>;

/** Where a conditional write applies: the model's context, its filters, and whether soft-deleted rows count. */
export interface WriteTarget {
  db: Knex;
  ctx: ReadContext;
  filters: Filters;
  includeDeleted?: boolean;
}

/**
 * Whether a write on these filters can be one statement: the primary key equal to one
 * value (at most one row, so "more than one matches" cannot happen), or several rows
 * allowed; and no relation filter, whose subquery MariaDB refuses inside an UPDATE or
 * DELETE of the same table.
 */
export function writesInOneStatement(info: ModelInfo, filters: Filters, allowMultiple: boolean | undefined): boolean {
  for (const key in filters) if (key.includes('.') || key === '_or') return false;
  if (allowMultiple) return true;
  return pinsKey(info, filters);
}

/** Whether the engine answers the written row itself (INSERT/UPDATE … RETURNING through knex). */
export function returnsRows(db: Knex): boolean {
  return dialectOf(db) !== 'mysql';
}

/** `INSERT … RETURNING` the columns; the stored row, normalized as a read normalizes it. */
export async function insertReturning(db: Knex, info: ModelInfo, values: Row, columns: string[]): Promise<Row> {
  const [row] = (await reuseCompiledSql(db(info.table).insert(values).returning(columns))) as Row[];
  return normalizeRow(row, info);
}

/**
 * `UPDATE … WHERE <filters>`: the number of rows it matched. `changesEveryRow` says the
 * values differ from every matched row's (a soft delete sets the flag its WHERE excludes).
 */
export async function updateWhere(target: WriteTarget, values: Row, changesEveryRow = false): Promise<number> {
  const count = Number(await onTarget(target, (query) => query.update(values)));
  // MariaDB counts changed rows, not matched ones, when a connection turns off
  // FOUND_ROWS: a row already holding these values must still not be a 404.
  if (count === 0 && !changesEveryRow && dialectOf(target.db) === 'mysql') return (await matches(target)) ? 1 : 0;
  return count;
}

/** `UPDATE … WHERE <filters> RETURNING` the columns: the rows as stored, normalized. */
export async function updateReturning(target: WriteTarget, values: Row, columns: string[]): Promise<Row[]> {
  const rows = (await onTarget(target, (query) => query.update(values).returning(columns))) as Row[];
  for (const row of rows) normalizeRow(row, target.ctx.info);
  return rows;
}

/** `DELETE … WHERE <filters> RETURNING` the columns: the rows as they were, normalized. */
export async function deleteReturning(target: WriteTarget, columns: string[]): Promise<Row[]> {
  const rows = (await onTarget(target, (query) => query.del().returning(columns))) as Row[];
  for (const row of rows) normalizeRow(row, target.ctx.info);
  return rows;
}

/** `DELETE … WHERE <filters>`: the number of rows removed. */
export async function deleteWhere(target: WriteTarget): Promise<number> {
  return Number(await onTarget(target, (query) => query.del()));
}

/**
 * Runs the statement `finish` makes of the filtered query over the table. (A builder is a
 * thenable: answered from an async function, it would run as a SELECT.)
 */
async function onTarget(
  target: WriteTarget,
  finish: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<unknown> {
  const started = startBuild(target.db, target.ctx, [target.filters]);
  const build = started instanceof Promise ? await started : started;
  return reuseCompiledSql(
    finish(whereQuery(build, target.ctx, { filters: target.filters, includeDeleted: target.includeDeleted })),
  );
}

async function matches(target: WriteTarget): Promise<boolean> {
  const rows = (await onTarget(target, (query) => query.select(target.db.raw('1 as one')).limit(1))) as Row[];
  return rows.length > 0;
}
