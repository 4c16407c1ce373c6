import type { Knex } from 'knex';
import { MAX_BATCH_ROWS } from '../data/bulk-writes';
import { collatedKey, conflictKey, weighedKey } from '../data/conflict-keys';
import { dialectOf } from '../data/dialect';
import { ConflictError, ValidationError, type ValidationIssue } from '../errors/http-error';
import type { ModelInfo } from '../model/model-info';

// What a bulk upsert's items may ask, checked before its statement: each item names its own
// row, and no other item names it. Two items of one conflict value make PostgreSQL refuse
// the statement (it updates a row once) where MariaDB and SQLite apply both; an item whose
// id is not its row's would change that row's primary key.

type Row = Record<string, unknown>;

/**
 * 422 locating each item whose `conflict` value an earlier item gives, compared as the
 * unique index compares them (on MariaDB `Abc` repeats `abc` under the default collation).
 * The values are never echoed: the column may be one the caller cannot read.
 */
export async function refuseRepeated(db: Knex, info: ModelInfo, conflict: string, rows: Row[]): Promise<void> {
  if (rows.length < 2) return;
  const given = rows.map((row) => row[conflict]);
  const key = await weighedKey(db, info, conflict, given);
  const first = new Map<string, number>();
  const issues: ValidationIssue[] = [];
  given.forEach((value, index) => {
    const earlier = first.get(key(value));
    if (earlier === undefined) first.set(key(value), index);
    else
      issues.push({
        loc: ['body', index, conflict],
        msg: `Item ${earlier} gives the same ${conflict}: an upsert writes each row once`,
        type: 'duplicate_in_request',
      });
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * In the caller's transaction, before an upsert by `conflict` other than the primary key:
 * 409 when an item gives an id other than the one of the stored row holding its `conflict`
 * value (the upsert would change that row's id). Those rows stay locked until it ends
 * (`SELECT … FOR UPDATE`; SQLite writes one transaction at a time).
 */
export async function requireOwnIds(trx: Knex, info: ModelInfo, conflict: string, rows: Row[]): Promise<void> {
  const id = info.idColumn;
  if (conflict === id) return;
  const giving = rows.flatMap((row, index) => (row[id] === undefined || row[id] === null ? [] : [{ row, index }]));
  if (giving.length === 0) return;
  const values = giving.map(({ row }) => row[conflict]);
  const stored: Row[] = [];
  for (let start = 0; start < values.length; start += MAX_BATCH_ROWS) {
    const query = trx(info.table)
      .select(id, conflict)
      .whereIn(conflict, values.slice(start, start + MAX_BATCH_ROWS) as string[]);
    stored.push(...((await (dialectOf(trx) === 'sqlite' ? query : query.forUpdate())) as Row[]));
  }
  const key = await collatedKey(trx, info, conflict, { given: values, stored: stored.map((row) => row[conflict]) });
  const idKey = conflictKey(info, id);
  const held = new Map(stored.map((row) => [key(row[conflict]), idKey(row[id])]));
  const strangers = giving.filter(({ row }) => {
    const owner = held.get(key(row[conflict]));
    return owner !== undefined && owner !== idKey(row[id]);
  });
  if (strangers.length > 0)
    throw new ConflictError(
      `Item ${strangers[0].index} gives another ${id} than the stored row holding its ${conflict}: an upsert never changes a row's ${id}`,
    );
}
