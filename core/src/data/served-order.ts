import type { CatalogueIndex, IndexColumn } from './catalogue-indexes';
import type { Dialect } from './dialect';

/** A sort key as an index is judged for it: the column, and whether it may hold NULLs. */
export interface SortedColumn {
  column: string;
  nullable: boolean;
}

/**
 * Whether the index reads `sort` in order once every column before it is fixed by
 * equality (`fixed`). On PostgreSQL a nullable column is ordered `ASC NULLS FIRST` /
 * `DESC NULLS LAST`, which one index column serves in either direction only when its
 * NULLs are on that side; SQLite and MariaDB sort NULLs that way in every index.
 */
export function indexOrders(
  index: CatalogueIndex,
  sort: SortedColumn,
  fixed: ReadonlySet<string>,
  dialect: Dialect,
): boolean {
  const at = indexPosition(index, sort.column);
  if (at < 0 || !index.columns.slice(0, at).every((column) => fixed.has(column.name.toLowerCase()))) return false;
  const column: IndexColumn = index.columns[at];
  return dialect !== 'pg' || !sort.nullable || column.desc !== column.nullsFirst;
}

/** Where the column sits in the index, or -1 (names compared without case: MariaDB's and SQLite's rule, and PostgreSQL folds unquoted ones). */
export function indexPosition(index: CatalogueIndex, column: string): number {
  const wanted = column.toLowerCase();
  return index.columns.findIndex((known) => known.name.toLowerCase() === wanted);
}
