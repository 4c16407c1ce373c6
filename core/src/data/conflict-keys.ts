import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import { normalizeValue } from './normalize';
import type { ModelInfo } from '../model/model-info';

// Which values of a unique column an upsert may treat as one: the ones its unique index
// holds equal. In JS a value's key says so for the forms a driver gives of one value; on
// MariaDB a text column's collation decides too (utf8mb4_general_ci holds 'Abc', 'abc' and
// 'ábc' equal), so there the database weighs the values.

type Key = (value: unknown) => string;

/** The most values weighed in one statement. */
const WEIGHED_AT_ONCE = 500;

/**
 * A value of the unique `column` as a key that two forms of one stored value share: a
 * decimal without its scale ('10.50' and 10.5), a datetime as its instant whatever the
 * driver's form (a Date, SQLite's text). Keys, never the text of a value, tell which rows
 * an upsert checked; on MariaDB a text column's values need `collatedKey`.
 */
export function conflictKey(info: ModelInfo, column: string): Key {
  const known = info.columns.get(column);
  return (value) => {
    const normal = known ? normalizeValue(value, known) : value;
    return normal instanceof Date ? normal.toISOString() : String(normal);
  };
}

/**
 * `conflictKey`, made to agree with the database for the `given` values and the `stored`
 * ones they met: on MariaDB, when the column is text, each value's key is its weight in the
 * column's collation (trailing spaces dropped where the collation pads), as the unique
 * index compares it. PostgreSQL and SQLite compare text exactly, and where nothing is
 * stored or every value given is stored as sent nothing is left to weigh: no statement.
 * Any value other than these is keyed as `conflictKey` keys it.
 */
export async function collatedKey(
  trx: Knex,
  info: ModelInfo,
  column: string,
  values: { given: unknown[]; stored: unknown[] },
): Promise<Key> {
  const exact = conflictKey(info, column);
  const kind = info.columns.get(column)?.kind;
  if (dialectOf(trx) !== 'mysql' || (kind !== undefined && kind !== 'string')) return exact;
  const held = new Set(values.stored.map(exact));
  if (held.size === 0 || values.given.every((value) => held.has(exact(value)))) return exact;
  const collation = await collationOf(trx, info.table, column);
  if (!collation) return exact;
  const distinct = [...new Set([...values.given, ...values.stored].map((value) => String(value)))];
  const weights = new Map<string, string>();
  const text = collation.pads ? 'TRIM(TRAILING ? FROM CONVERT(? USING ??))' : 'CONVERT(? USING ??)';
  for (let start = 0; start < distinct.length; start += WEIGHED_AT_ONCE) {
    const chunk = distinct.slice(start, start + WEIGHED_AT_ONCE);
    const weighed = chunk.map((_, i) => `HEX(WEIGHT_STRING(${text} COLLATE ${collation.name})) AS w${i}`);
    const bindings = chunk.flatMap((value) =>
      collation.pads ? [' ', value, collation.charset] : [value, collation.charset],
    );
    const [[row]] = (await trx.raw(`SELECT ${weighed.join(', ')}`, bindings)) as [Record<string, string>[]];
    chunk.forEach((value, i) => weights.set(value, row[`w${i}`]));
  }
  return (value) => {
    const weight = weights.get(String(value));
    return weight === undefined ? exact(value) : `weight:${weight}`;
  };
}

/**
 * The column's character set and collation when it is text; undefined for any other
 * column (its collation is `binary`). A collation's name is the database's own, so it
 * can stand in the statement.
 */
async function collationOf(
  trx: Knex,
  table: string,
  column: string,
): Promise<{ name: string; charset: string; pads: boolean } | undefined> {
  // An outer join on nothing answers the column's collation even when the table is empty.
  const [[row]] = (await trx.raw(
    'SELECT COLLATION(t.??) AS name, CHARSET(t.??) AS charset FROM (SELECT 1) AS one LEFT JOIN ?? AS t ON FALSE',
    [column, column, table],
  )) as [{ name: string; charset: string }[]];
  const { name, charset } = row;
  if (name === 'binary' || !/^\w+$/.test(name)) return undefined;
  return { name, charset, pads: !name.includes('_nopad_') };
}
