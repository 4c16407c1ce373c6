import type { Knex } from 'knex';
import { batchesOf, MAX_BATCH_ROWS } from './bulk-writes';
import { reuseCompiledSql } from './compiled-sql';
import { returnsRows } from './conditional-writes';
import { dialectOf } from './dialect';
import { normalizeRow } from './normalize';
import { collatedKey, conflictKey } from './conflict-keys';
import { DuplicateValueError } from '../errors/http-error';
import { DUPLICATE_DETAIL, mapDatabaseError } from '../errors/database-error';
import type { ModelInfo } from '../model/model-info';

// An upsert of many rows, each batch one INSERT … ON CONFLICT / ON DUPLICATE KEY UPDATE,
// and its guard under a row rule: the stored rows it may reach are locked and checked
// first (`lockStored`), and its conflict action then updates only those.

type Row = Record<string, unknown>;

/**
 * Inserts the rows, updating instead the row that already holds a row's `conflict` value
 * (its `merge` columns set from the row), one statement per batch. Answers the stored
 * rows' `columns` where the engine returns them (else the caller reads them), and the
 * conflict values whose stored row the statement left alone. On MariaDB, also each item
 * that updated a row by its own conflict value as the value sent and the value stored
 * (`met`): two items of values its collation holds equal ('Abc', 'abc') reach one row
 * there, which the statement updates twice, and these pairs tell the caller so.
 *
 * An item that meets a stored row by another unique value than its `conflict` one (a
 * row holding another of its values, or none holding its `conflict` value) changes no row
 * and fails with a `DuplicateValueError`, on every engine: PostgreSQL and SQLite raise the
 * unique violation, MariaDB's `ON DUPLICATE KEY UPDATE` (which would update that other row)
 * only sets columns on the row holding the item's own value (`upsertOwnRowsMysql`). The
 * caller's transaction rolls the request back.
 *
 * With `only` (keys of `conflictKey`, from `lockStored`), the conflict action updates only
 * stored rows whose `conflict` value is in it (the ones the caller checked and locked): a
 * row another client inserted meanwhile is never changed, and its value is answered
 * skipped. PostgreSQL and SQLite put the condition in `DO UPDATE … WHERE` and skip the
 * rows `RETURNING` leaves out; MariaDB's `ON DUPLICATE KEY UPDATE` has no WHERE, so there
 * the rows to create and the rows to update are two statements (`upsertCheckedMysql`), and
 * an item that met another row is answered skipped too.
 */
export async function upsertMany(
  trx: Knex,
  info: ModelInfo,
  rows: Row[],
  options: { conflict: string; merge: ReadonlySet<string>; columns?: string[]; only?: ReadonlySet<string> },
): Promise<{ rows?: Row[]; skipped: unknown[]; met: [unknown, unknown][] }> {
  const { conflict, only } = options;
  const key = conflictKey(info, conflict);
  const answers = returnsRows(trx) && (options.columns || only);
  const returned: Row[] = [];
  const skipped: unknown[] = [];
  const met: [unknown, unknown][] = [];
  for (const batch of batchesOf(trx, rows, true)) {
    // A stored row keeps its primary key: an item giving another is refused before this.
    const written = Object.keys(batch.rows[0]).filter(
      (column) => column !== conflict && !info.idColumns.includes(column) && options.merge.has(column),
    );
    if (dialectOf(trx) === 'mysql') {
      const upserted = only
        ? await upsertCheckedMysql(trx, info, batch.rows, { conflict, written, only })
        : await upsertOwnRowsMysql(trx, info, batch.rows, { conflict, written });
      // An item that met another row first left it alone: PostgreSQL and SQLite refuse
      // such an item with a unique violation, and so does this; the caller rolls back.
      if (!only && upserted.missed.length > 0) throw new DuplicateValueError(DUPLICATE_DETAIL);
      skipped.push(...upserted.missed);
      met.push(...upserted.met);
      continue;
    }
    const query = trx(info.table).insert(batch.rows).onConflict(conflict);
    const given = batch.rows.map((row) => row[conflict]);
    let merged: Knex.QueryBuilder;
    if (!only)
      // A row of nothing to set still has a statement to send: it sets the conflict column
      // to itself, so it changes nothing yet answers its row (DO NOTHING would answer none).
      merged = query.merge(written.length > 0 ? written : [conflict]);
    else {
      // The values as written, so the engine compares them by the column's type.
      const checked = [...new Map(given.filter((v) => only.has(key(v))).map((v) => [key(v), v])).values()];
      // Setting the conflict column to itself makes a row that changes nothing still answer.
      merged = query
        .merge(written.length > 0 ? written : [conflict])
        .whereIn(`${info.table}.${conflict}`, checked.length > 0 ? (checked as string[]) : [null as never]);
    }
    if (answers) {
      const columns = [...new Set([...(options.columns ?? []), conflict])];
      const answered = new Set<string>();
      for (const row of (await reuseCompiledSql(merged.returning(columns))) as Row[]) {
        answered.add(key(row[conflict]));
        if (!options.columns?.includes(conflict)) delete row[conflict];
        if (options.columns) returned.push(normalizeRow(row, info));
      }
      if (only) skipped.push(...given.filter((value) => !answered.has(key(value))));
    } else await reuseCompiledSql(merged);
  }
  return { rows: answers && options.columns ? returned : undefined, skipped, met };
}

/**
 * MariaDB's upsert of one batch limited to the `only` rows; answers the values it left
 * alone (`missed`) and the rows it met (`met`, as `upsertOwnRowsMysql`). Under READ
 * COMMITTED the check's locking read holds no index gap, so another client may store a
 * value no row held before this statement: the rows to create are a plain INSERT, which
 * such a row makes fail (that statement alone is rolled back; the values stored then are
 * skipped, the others sent again), never an update that quietly changes nothing. The
 * checked rows go through `upsertOwnRowsMysql`.
 */
async function upsertCheckedMysql(
  trx: Knex,
  info: ModelInfo,
  rows: Row[],
  options: { conflict: string; written: string[]; only: ReadonlySet<string> },
): Promise<{ missed: unknown[]; met: [unknown, unknown][] }> {
  const { conflict, written, only } = options;
  const key = conflictKey(info, conflict);
  const checked = rows.filter((row) => only.has(key(row[conflict])));
  const skipped: unknown[] = [];
  let made = rows.filter((row) => !only.has(key(row[conflict])));
  while (made.length > 0) {
    try {
      await reuseCompiledSql(trx(info.table).insert(made));
      break;
    } catch (error) {
      if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
      const values = made.map((row) => row[conflict]);
      const taken = await lockStored(trx, info, conflict, values);
      const isTaken = (row: Row) => taken.has(key(row[conflict]));
      // None stored: the items collided with each other or on another unique key.
      if (!made.some(isTaken)) throw error;
      skipped.push(...made.filter(isTaken).map((row) => row[conflict]));
      made = made.filter((row) => !isTaken(row));
    }
  }
  if (checked.length === 0) return { missed: skipped, met: [] };
  const own = await upsertOwnRowsMysql(trx, info, checked, { conflict, written });
  return { missed: [...skipped, ...own.missed], met: own.met };
}

/**
 * MariaDB's upsert of `rows` by `conflict`, one INSERT … ON DUPLICATE KEY UPDATE, which
 * updates the first row an item meets on any unique key (the primary key, or another
 * unique column, may come before `conflict`'s): each column is set only on a row that
 * holds the item's own conflict value, compared by the engine (by the column's type and
 * collation). An item that met another row first changes nothing there; the conflict
 * column's assignment, which keeps its value, notes that item's value in a session
 * variable (set empty first, read after). Answers those items' values (`missed`), and
 * each other item that met a row as its value and the row's, noted the same way (`met`).
 */
async function upsertOwnRowsMysql(
  trx: Knex,
  info: ModelInfo,
  rows: Row[],
  options: { conflict: string; written: string[] },
): Promise<{ missed: unknown[]; met: [unknown, unknown][] }> {
  const { conflict, written } = options;
  const same = trx.raw('?? <=> VALUES(??)', [conflict, conflict]);
  // The conflict column's assignment comes first, so `??` there is the row's value as met.
  const noted = trx.raw(
    `IF(?, (@crudsmith_met := JSON_ARRAY_APPEND(@crudsmith_met, '$', JSON_ARRAY(VALUES(??), ??))),
      (@crudsmith_missed := JSON_ARRAY_APPEND(@crudsmith_missed, '$', VALUES(??))))`,
    [same, conflict, conflict, conflict],
  );
  const assignments = Object.fromEntries([
    // Either way the value is kept; noting the item is what the assignment is for.
    [conflict, trx.raw('IF(? IS NULL, ??, ??)', [noted, conflict, conflict])],
    ...written.map((column) => [column, trx.raw('IF(?, VALUES(??), ??)', [same, column, column])]),
  ]);
  await trx.raw('SET @crudsmith_missed = JSON_ARRAY(), @crudsmith_met = JSON_ARRAY()');
  await reuseCompiledSql(trx(info.table).insert(rows).onConflict(conflict).merge(assignments));
  const [[noting]] = (await trx.raw('SELECT @crudsmith_missed AS missed, @crudsmith_met AS met')) as [
    { missed: string; met: string }[],
  ];
  // The values as the database wrote them into JSON: keys tell which items they are.
  const key = conflictKey(info, conflict);
  const sent = new Map(rows.map((row) => [key(row[conflict]), row[conflict]]));
  const item = (value: unknown) => sent.get(key(value)) ?? value;
  return {
    missed: (JSON.parse(noting.missed) as unknown[]).map(item),
    met: (JSON.parse(noting.met) as [unknown, unknown][]).map(([value, stored]) => [item(value), stored]),
  };
}

/**
 * In the caller's transaction, the values among `values` of the unique `column` that a
 * stored row holds, as the database compares them (as `conflictKey`s of the values given),
 * their rows locked until it ends (`SELECT … FOR UPDATE`; SQLite writes one transaction at
 * a time). On MariaDB's default REPEATABLE READ the locking read also holds the index gaps
 * of the values no row holds, so no other client inserts one before the transaction ends.
 */
export async function lockStored(trx: Knex, info: ModelInfo, column: string, values: unknown[]): Promise<Set<string>> {
  const held: unknown[] = [];
  for (let start = 0; start < values.length; start += MAX_BATCH_ROWS) {
    const query = trx(info.table)
      .select(column)
      .whereIn(column, values.slice(start, start + MAX_BATCH_ROWS) as string[]);
    for (const row of (await (dialectOf(trx) === 'sqlite' ? query : query.forUpdate())) as Row[])
      held.push(row[column]);
  }
  // A value matches the stored one its unique index holds equal ('Abc' and 'abc' on MariaDB).
  const collated = await collatedKey(trx, info, column, { given: values, stored: held });
  const stored = new Set(held.map(collated));
  const key = conflictKey(info, column);
  return new Set(values.filter((value) => stored.has(collated(value))).map(key));
}
