import type { Knex } from 'knex';
import { reuseCompiledSql } from './compiled-sql';
import { returnsRows, updateWhere, deleteWhere, type WriteTarget } from './conditional-writes';
import { dialectOf } from './dialect';
import { insertDirectly, writesDirectly } from './direct-writes';
import { normalizeRow } from './normalize';
import { isComposite, keyOf, type RowKey } from './row-key';
import type { ModelInfo } from '../model/model-info';

// Writes of many rows, each batch one statement: a multi-row INSERT (… RETURNING where the
// engine answers rows through knex), an INSERT … ON CONFLICT / ON DUPLICATE KEY UPDATE for
// an upsert, and one conditional UPDATE or DELETE for a filter, inside the caller's
// transaction. They go through knex: a model's `$beforeInsert` and database mappers run on
// each row first (`insertValues`), its other hooks do not (a soft delete never ran them).

type Row = Record<string, unknown>;

// Bound parameters per statement: under PostgreSQL's 65535 and SQLite's 32766.
const MAX_PARAMETERS = 30_000;
const MAX_BATCH_ROWS = 1000;

/**
 * The rows cut into batches that each fit one statement. On SQLite knex fills a key a row
 * lacks with NULL rather than the column's default, so a batch there holds rows of one key
 * set; an upsert's batches do everywhere (a row updated keeps the columns it does not give).
 */
export function batchesOf(
  db: Knex,
  rows: Row[],
  sameKeys = dialectOf(db) === 'sqlite',
): { start: number; rows: Row[] }[] {
  const sqlite = sameKeys;
  const batches: { start: number; rows: Row[]; keys: string; params: number }[] = [];
  rows.forEach((row, index) => {
    const keys = sqlite ? Object.keys(row).sort().join(',') : '';
    const width = Math.max(1, Object.keys(row).length);
    const last = batches[batches.length - 1];
    if (last && last.keys === keys && last.rows.length < MAX_BATCH_ROWS && last.params + width <= MAX_PARAMETERS) {
      last.rows.push(row);
      last.params += width;
    } else batches.push({ start: index, rows: [row], keys, params: width });
  });
  return batches;
}

/**
 * The rows as objection would send them: each through the model's `$beforeInsert` and
 * `$toDatabaseJson`, unless the model has neither (then as they are).
 */
export async function insertValues(info: ModelInfo, rows: Row[]): Promise<Row[]> {
  if (writesDirectly(info)) return rows;
  const model = info.model as unknown as {
    fromJson(json: Row, options: object): { $beforeInsert(ctx: object): unknown; $toDatabaseJson(): Row };
  };
  return Promise.all(
    rows.map(async (row) => {
      const instance = model.fromJson(row, { skipValidation: true });
      await instance.$beforeInsert({});
      return instance.$toDatabaseJson();
    }),
  );
}

/**
 * Inserts the rows, one statement per batch, and answers their keys in order; with
 * `columns`, also the stored rows where the engine returns them (PostgreSQL, SQLite).
 * MariaDB answers a batch's first generated id: the others follow it, as InnoDB assigns a
 * multi-row INSERT's ids consecutively.
 */
export async function insertMany(
  trx: Knex,
  info: ModelInfo,
  rows: Row[],
  columns?: string[],
): Promise<{ keys: RowKey[]; rows?: Row[] }> {
  const keys: RowKey[] = [];
  const returned: Row[] = [];
  const answers = returnsRows(trx);
  for (const batch of batchesOf(trx, rows)) {
    if (answers) {
      const query = trx(info.table)
        .insert(batch.rows)
        .returning(columns ?? info.idColumns);
      for (const row of (await reuseCompiledSql(query)) as Row[]) {
        normalizeRow(row, info);
        returned.push(row);
        keys.push(keyOf(info, row));
      }
    } else keys.push(...(await insertBatchMysql(trx, info, batch.rows)));
  }
  return answers && columns ? { keys, rows: returned } : { keys };
}

async function insertBatchMysql(trx: Knex, info: ModelInfo, rows: Row[]): Promise<RowKey[]> {
  const given = (row: Row) => {
    const id = row[info.idColumn];
    return id !== undefined && id !== null && id !== '' && id !== 0;
  };
  if (isComposite(info) || rows.every(given)) {
    await reuseCompiledSql(trx(info.table).insert(rows));
    return rows.map((row) => keyOf(info, row));
  }
  // Ids given to some rows only break the run of generated ones: each row alone.
  if (rows.some(given)) {
    const keys: RowKey[] = [];
    for (const row of rows) keys.push(await insertDirectly(trx, info, row));
    return keys;
  }
  const [first] = (await reuseCompiledSql(trx(info.table).insert(rows))) as number[];
  return rows.map((_, i) => Number(first) + i);
}

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

/**
 * Runs one conditional UPDATE (or DELETE when `values` is undefined) over the filtered
 * rows and answers how many it touched. Over `maxAffected`, the caller's transaction is
 * rolled back by the error `refuse` throws, so nothing changes.
 */
export async function writeWhere(
  target: WriteTarget,
  values: Row | undefined,
  maxAffected: number | undefined,
  refuse: (count: number) => Error,
): Promise<number> {
  const count = values ? await updateWhere(target, values, true) : await deleteWhere(target);
  if (maxAffected !== undefined && count > maxAffected) throw refuse(count);
  return count;
}
