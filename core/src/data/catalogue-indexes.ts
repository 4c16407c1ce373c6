import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/** One key column of an index, as the catalogue records it. */
export interface IndexColumn {
  name: string;
  desc: boolean;
  /** PostgreSQL only: the index puts NULLs first (in its own direction). */
  nullsFirst: boolean;
}

/** One index of a table: its key columns in order (expression columns are left out). */
export interface CatalogueIndex {
  name: string;
  columns: IndexColumn[];
}

interface Row {
  index: string;
  column: string | null;
  desc: unknown;
  nulls_first: unknown;
}

/**
 * The plain indexes of one table, read from the database catalogue in one query:
 * PostgreSQL's pg_index, MariaDB's information_schema.STATISTICS, SQLite's index pragmas.
 * Partial indexes are left out (a generic plan whose condition is a bound value cannot
 * use them), and so are FULLTEXT ones, which serve no `WHERE col = ?` nor any order.
 */
export async function readIndexes(knex: Knex, table: string): Promise<CatalogueIndex[]> {
  const rows = await catalogueRows(knex, table);
  const indexes = new Map<string, CatalogueIndex>();
  for (const row of rows) {
    const index = indexes.get(row.index) ?? { name: row.index, columns: [] };
    indexes.set(row.index, index);
    // An expression column still takes its place: nothing after it is ordered by a column alone.
    index.columns.push({ name: row.column ?? '', desc: truthy(row.desc), nullsFirst: truthy(row.nulls_first) });
  }
  return [...indexes.values()];
}

// The drivers answer booleans as true, 1 or '1'.
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

async function catalogueRows(knex: Knex, table: string): Promise<Row[]> {
  const dialect = dialectOf(knex);
  if (dialect === 'pg') {
    // indoption bit 1 is DESC, bit 2 NULLS FIRST; only the key columns (not INCLUDE ones).
    const result = await knex.raw<{ rows: Row[] }>(
      `select i.relname as "index", a.attname as "column",
              (k.opt & 1) = 1 as "desc", (k.opt & 2) = 2 as nulls_first
         from pg_index x
         join pg_class i on i.oid = x.indexrelid
         cross join lateral unnest(x.indkey::int2[], x.indoption::int2[]) with ordinality as k(attnum, opt, ord)
         left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum and k.attnum > 0
        where x.indrelid = to_regclass(?) and x.indpred is null and k.ord <= x.indnkeyatts
        order by i.relname, k.ord`,
      [qualified(table)],
    );
    return result.rows;
  }
  if (dialect === 'mysql') {
    return knex('information_schema.STATISTICS')
      .select({ index: 'INDEX_NAME', column: 'COLUMN_NAME' })
      .select(knex.raw(`COLLATION = 'D' as ??`, ['desc']), knex.raw('0 as ??', ['nulls_first']))
      .whereRaw('TABLE_SCHEMA = DATABASE()')
      .where('TABLE_NAME', table)
      .whereNot('INDEX_TYPE', 'FULLTEXT')
      .orderBy(['INDEX_NAME', 'SEQ_IN_INDEX']);
  }
  // The table-valued pragmas read every index of the table in one statement.
  return knex.raw<Row[]>(
    `select l.name as "index", c.name as "column", c."desc" as "desc", 0 as nulls_first
       from pragma_index_list(?) l join pragma_index_xinfo(l.name) c
      where l.partial = 0 and c.key = 1
      order by l.name, c.seqno`,
    [table],
  );
}

// to_regclass folds an unquoted name to lower case, and reads `schema.table` as such.
function qualified(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}
