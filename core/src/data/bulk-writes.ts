import type { Knex } from 'knex';
import { reuseCompiledSql } from './compiled-sql';
import { returnsRows, updateWhere, deleteWhere, type WriteTarget } from './conditional-writes';
import { dialectOf } from './dialect';
import { insertDirectly, writesDirectly } from './direct-writes';
import { normalizeRow } from './normalize';
import { isComposite, keyOf, type RowKey } from './row-key';
import type { ModelInfo } from '../model/model-info';

// Writes of many rows, each batch one statement: a multi-row INSERT (… RETURNING where the
// engine answers rows through knex) and one conditional UPDATE or DELETE for a filter,
// inside the caller's transaction; an upsert's are in upsert-writes.ts. They go through
// knex: a model's `$beforeInsert` and database mappers run on each row first
// (`insertValues`), its other hooks do not (a soft delete never ran them).

type Row = Record<string, unknown>;

// Bound parameters per statement: under PostgreSQL's 65535 and SQLite's 32766.
const MAX_PARAMETERS = 30_000;
/** Rows per statement at most, whatever their width. */
export const MAX_BATCH_ROWS = 1000;

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
