import type { Knex } from 'knex';
import { MAX_BATCH_ROWS } from '../data/bulk-writes';
import { collatedKey, conflictKey } from '../data/conflict-keys';
import { dialectOf } from '../data/dialect';
import { ConflictError, ValidationError } from '../errors/http-error';
import type { ModelInfo } from '../model/model-info';

// What a bulk upsert's items may ask: each item names its own row, and no other item names
// it. Two items of one conflict value make PostgreSQL refuse the statement (it updates a row
// once) where MariaDB and SQLite apply both; an item whose id is not its row's would change
// that row's primary key.

type Row = Record<string, unknown>;

/**
 * 422 locating each item whose `conflict` value an earlier item gives, before any
 * statement. The values are never echoed: the column may be one the caller cannot read.
 */
export function refuseRepeated(info: ModelInfo, conflict: string, rows: Row[]): void {
  const key = conflictKey(info, conflict);
  const first = new Map<string, number>();
  const repeats: [number, number][] = [];
  rows.forEach((row, index) => {
    const earlier = first.get(key(row[conflict]));
    if (earlier === undefined) first.set(key(row[conflict]), index);
    else repeats.push([index, earlier]);
  });
  if (repeats.length > 0) throw repeatedError(conflict, repeats);
}

/**
 * After MariaDB's upsert, in its transaction: the same 422 for items whose values differ
 * but reached one row (its collation holds 'Abc' and 'abc' equal), told by the rows the
 * statement `met` ([value sent, value stored]): two items met one row, or one met the row
 * another item's value made. Throwing rolls the request back.
 */
export function refuseShared(info: ModelInfo, conflict: string, rows: Row[], met: [unknown, unknown][]): void {
  const key = conflictKey(info, conflict);
  // Values are distinct by now (`refuseRepeated`): each names one item.
  const sender = new Map(rows.map((row, index) => [key(row[conflict]), index]));
  const reached = new Map<string, Set<number>>();
  for (const [value, stored] of met) {
    const index = sender.get(key(value));
    if (index === undefined) continue;
    const items = reached.get(key(stored)) ?? new Set(sender.has(key(stored)) ? [sender.get(key(stored))!] : []);
    reached.set(key(stored), items.add(index));
  }
  const repeats = [...reached.values()].flatMap((items) => {
    const [first, ...others] = [...items].sort((a, b) => a - b);
    return others.map((index): [number, number] => [index, first]);
  });
  if (repeats.length > 0)
    throw repeatedError(
      conflict,
      repeats.sort(([a], [b]) => a - b),
    );
}

/** The 422 of items (`[index, earlier index]`) naming a row an earlier item names. */
function repeatedError(conflict: string, repeats: [number, number][]): ValidationError {
  return new ValidationError(
    repeats.map(([index, earlier]) => ({
      loc: ['body', index, conflict],
      msg: `Item ${earlier} gives the same ${conflict}: an upsert writes each row once`,
      type: 'duplicate_in_request',
    })),
  );
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
