import type { Knex } from 'knex';
import { batchesOf, MAX_BATCH_ROWS } from './bulk-writes';
import { reuseCompiledSql } from './compiled-sql';
import { returnsRows } from './conditional-writes';
import { dialectOf } from './dialect';
import { normalizeRow } from './normalize';
import type { ModelInfo } from '../model/model-info';

// An upsert of many rows, each batch one INSERT … ON CONFLICT / ON DUPLICATE KEY UPDATE,
// and its guard under a row rule: the stored rows it may reach are locked and checked
// first (`lockStored`), and its conflict action then updates only those.

type Row = Record<string, unknown>;

/**
 * Inserts the rows, updating instead the row that already holds a row's `conflict` value
 * (its `merge` columns set from the row), one statement per batch. Answers the stored
 * rows' `columns` where the engine returns them (else the caller reads them), and the
 * conflict values whose stored row the statement left alone.
 *
 * With `only`, the conflict action updates only stored rows whose `conflict` value is in
 * it (the ones the caller checked and locked): a row another client inserted meanwhile is
 * never changed. PostgreSQL and SQLite put it in `DO UPDATE … WHERE` and answer the rows
 * it skipped (those `RETURNING` leaves out); MariaDB, whose `ON DUPLICATE KEY UPDATE` has
 * no WHERE, sets each column to its stored value unless the condition holds, and answers
 * the values no row holds (an item that collided on another unique key).
 */
export async function upsertMany(
  trx: Knex,
  info: ModelInfo,
  rows: Row[],
  options: { conflict: string; merge: ReadonlySet<string>; columns?: string[]; only?: ReadonlySet<string> },
): Promise<{ rows?: Row[]; skipped: unknown[] }> {
  const { conflict, only } = options;
  const answers = returnsRows(trx) && (options.columns || only);
  const returned: Row[] = [];
  const skipped: unknown[] = [];
  for (const batch of batchesOf(trx, rows, true)) {
    const written = Object.keys(batch.rows[0]).filter((key) => key !== conflict && options.merge.has(key));
    const query = trx(info.table).insert(batch.rows).onConflict(conflict);
    const given = batch.rows.map((row) => row[conflict]);
    const checked = only && [...new Set(given.map(String))].filter((value) => only.has(value));
    let merged: Knex.QueryBuilder;
    if (!only)
      // A row of the conflict column alone still has a statement to send: it changes nothing.
      merged = written.length > 0 ? query.merge(written) : query.ignore();
    else if (dialectOf(trx) === 'mysql') merged = query.merge(onlyChecked(trx, written, conflict, checked!));
    else
      // Setting the conflict column to itself makes a row that changes nothing still answer.
      merged = query
        .merge(written.length > 0 ? written : [conflict])
        .whereIn(`${info.table}.${conflict}`, checked!.length > 0 ? checked! : [null as never]);
    if (answers) {
      const columns = [...new Set([...(options.columns ?? []), conflict])];
      const answered = new Set<string>();
      for (const row of (await reuseCompiledSql(merged.returning(columns))) as Row[]) {
        answered.add(String(row[conflict]));
        if (!options.columns?.includes(conflict)) delete row[conflict];
        if (options.columns) returned.push(normalizeRow(row, info));
      }
      if (only) skipped.push(...given.filter((value) => !answered.has(String(value))));
    } else {
      await reuseCompiledSql(merged);
      if (only) skipped.push(...(await missing(trx, info, conflict, given)));
    }
  }
  return { rows: answers && options.columns ? returned : undefined, skipped };
}

/**
 * MariaDB's assignments for an upsert limited to the `checked` rows: each column keeps its
 * stored value unless the row's conflict value is one of them (one JSON parameter per
 * column, whatever their number). The conflict column is never assigned, so every
 * assignment tests the row as it was stored.
 */
function onlyChecked(trx: Knex, written: string[], conflict: string, checked: string[]): Record<string, Knex.Raw> {
  const json = JSON.stringify(checked);
  const columns = written.length > 0 ? written : [conflict];
  return Object.fromEntries(
    columns.map((column) => [
      column,
      column === conflict
        ? trx.raw('??', [column])
        : trx.raw('IF(JSON_CONTAINS(?, JSON_QUOTE(CAST(?? AS CHAR))), VALUES(??), ??)', [
            json,
            conflict,
            column,
            column,
          ]),
    ]),
  );
}

/** The given values of `column` no stored row holds. */
async function missing(trx: Knex, info: ModelInfo, column: string, values: unknown[]): Promise<unknown[]> {
  const stored = new Set(
    (
      (await trx(info.table)
        .select(column)
        .whereIn(column, values as string[])) as Row[]
    ).map((row) => String(row[column])),
  );
  return values.filter((value) => !stored.has(String(value)));
}

/**
 * In the caller's transaction, the stored values among `values` of the unique `column`,
 * their rows locked until it ends (`SELECT … FOR UPDATE`; SQLite writes one transaction at
 * a time). On MariaDB's default REPEATABLE READ the locking read also holds the index gaps
 * of the values no row holds, so no other client inserts one before the transaction ends.
 */
export async function lockStored(trx: Knex, info: ModelInfo, column: string, values: unknown[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let start = 0; start < values.length; start += MAX_BATCH_ROWS) {
    const query = trx(info.table)
      .select(column)
      .whereIn(column, values.slice(start, start + MAX_BATCH_ROWS) as string[]);
    for (const row of (await (dialectOf(trx) === 'sqlite' ? query : query.forUpdate())) as Row[])
      stored.add(String(row[column]));
  }
  return stored;
}
