import type { Knex } from 'knex';
import { MissingFulltextIndexError } from '../errors/configuration-error';
import { dialectOf } from './dialect';

/** A column a `match` filter searches, and the model that owns it. */
export interface MatchedColumn {
  model: string;
  table: string;
  column: string;
}

/**
 * Throws MissingFulltextIndexError for the first column no FULLTEXT index of its own
 * covers, on MySQL/MariaDB; PostgreSQL and SQLite search without one (or refuse `match`
 * by themselves), so nothing is asked of them.
 */
export async function assertFulltextIndexes(knex: Knex, columns: readonly MatchedColumn[]): Promise<void> {
  if (columns.length === 0 || dialectOf(knex) !== 'mysql') return;
  const tables = [...new Set(columns.map((column) => column.table))];
  // An index serves MATCH (col) only when col is its whole column list.
  const rows: { table: string; index: string; column: string }[] = await knex('information_schema.STATISTICS')
    .select({ table: 'TABLE_NAME', index: 'INDEX_NAME', column: 'COLUMN_NAME' })
    .whereRaw('TABLE_SCHEMA = DATABASE()')
    .where('INDEX_TYPE', 'FULLTEXT')
    .whereIn('TABLE_NAME', tables);
  const indexes = new Map<string, { table: string; columns: string[] }>();
  for (const row of rows) {
    const index = indexes.get(`${row.table}.${row.index}`) ?? { table: row.table, columns: [] };
    index.columns.push(row.column);
    indexes.set(`${row.table}.${row.index}`, index);
  }
  // MySQL compares column names without regard to case.
  const searchable = new Set(
    [...indexes.values()].flatMap((index) =>
      index.columns.length === 1 ? [`${index.table}.${index.columns[0].toLowerCase()}`] : [],
    ),
  );
  for (const { model, table, column } of columns) {
    if (!searchable.has(`${table}.${column.toLowerCase()}`)) throw new MissingFulltextIndexError(model, table, column);
  }
}
