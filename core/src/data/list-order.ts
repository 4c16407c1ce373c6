import type { Knex } from 'knex';
import { readIndexes, type CatalogueIndex } from './catalogue-indexes';
import { dialectOf } from './dialect';
import type { ReadContext, ReadPlan } from './read-query';
import { indexOrders } from './served-order';

// How a sorted list reads, given the table's indexes: whether one of them orders the page
// (then the page stops after its rows, and its count is a statement of its own), or none
// does (then the database reads every matching row to sort them, and the count comes in
// the same pass: page-and-count.ts). On PostgreSQL a nullable column is ordered with a
// NULLS clause that a plain index does not serve; when the request's own filter keeps
// NULLs out of that column (`price__gte=10`), the clause changes no row, so it is left out
// where that lets a plain index order the page. The indexes are read from the catalogue by
// the first sorted list of each database (one statement, once per process). A read that
// fails (the database down as the process starts) leaves lists on two statements, always
// right, and is tried again by the first sorted list a while later.

/** How long lists keep two statements after the catalogue could not be read. */
export const CATALOGUE_RETRY_MS = 30_000;

type Known = readonly CatalogueIndex[] | { unreadableUntil: number };

// Per knex client (one database and pool), per table: the indexes, or the read under way.
const catalogue = new WeakMap<object, Map<string, Known | Promise<Known>>>();

/** A read's plan as the table's indexes best serve it, and whether its count comes with the page. */
export interface IndexedOrder {
  plan: ReadPlan;
  onePass: boolean;
}

/**
 * Judges a read's order against the table's indexes (see above). Reads by primary key,
 * in a transaction (whose connection is its caller's) and on MariaDB (which reads a CTE
 * once per mention) keep their plan and two statements. A promise only while the indexes
 * are read.
 */
export function indexedOrder(
  db: Knex,
  ctx: ReadContext,
  plan: ReadPlan,
  counted: boolean,
): IndexedOrder | Promise<IndexedOrder> {
  const first = plan.specs?.[0];
  const kept = { plan, onePass: false };
  if (!first || ctx.info.idColumns.includes(first.column)) return kept;
  const dialect = dialectOf(db);
  if ((dialect !== 'pg' && dialect !== 'sqlite') || db.isTransaction) return kept;
  const judge = (indexes: Known): IndexedOrder => {
    if ('unreadableUntil' in indexes) return kept;
    const fixed = equalityColumns(ctx, plan);
    const nullable = ctx.info.columns.get(first.column)?.nullable ?? true;
    const orders = (sort: { column: string; nullable: boolean }) =>
      indexes.some((index) => indexOrders(index, sort, fixed, dialect));
    if (orders({ column: first.column, nullable })) return kept;
    if (
      dialect === 'pg' &&
      nullable &&
      keepsNullsOut(plan, first.column) &&
      orders({ column: first.column, nullable: false })
    ) {
      const specs = [{ ...first, nullsKeptOut: true }, ...plan.specs!.slice(1)];
      return { plan: { ...plan, specs }, onePass: false };
    }
    return { plan, onePass: counted };
  };
  const known = knownIndexes(db, ctx.info.table);
  return known instanceof Promise ? known.then(judge) : judge(known);
}

function knownIndexes(db: Knex, table: string): Known | Promise<Known> {
  let tables = catalogue.get(db.client);
  if (!tables) catalogue.set(db.client, (tables = new Map()));
  const known = tables.get(table);
  if (known !== undefined && !retryDue(known)) return known;
  const reading = readIndexes(db, table).then(
    (indexes): Known => indexes,
    (): Known => ({ unreadableUntil: Date.now() + CATALOGUE_RETRY_MS }),
  );
  tables.set(table, reading);
  void reading.then((indexes) => tables.set(table, indexes));
  return reading;
}

const retryDue = (known: Known | Promise<Known>): boolean =>
  !(known instanceof Promise) && 'unreadableUntil' in known && known.unreadableUntil <= Date.now();

// The columns the request fixes to one value: own `column` / `column__eq` filters with a
// plain value, and the soft-delete flag. Anything else (ranges, lists, `_or`) does not.
function equalityColumns(ctx: ReadContext, plan: ReadPlan): Set<string> {
  const fixed = new Set<string>();
  if (ctx.deletedFlag && !plan.includeDeleted) fixed.add(ctx.deletedFlag.toLowerCase());
  for (const key in plan.filters ?? {}) {
    const value = plan.filters![key];
    if (value === null || typeof value === 'object') continue;
    const column = key.endsWith('__eq') ? key.slice(0, -4) : key;
    if (ctx.info.columns.has(column)) fixed.add(column.toLowerCase());
  }
  return fixed;
}

// A comparison with a value is never true of NULL, so such a filter keeps NULLs out.
const COMPARISONS = ['', '__eq', '__gt', '__gte', '__lt', '__lte'];

function keepsNullsOut(plan: ReadPlan, column: string): boolean {
  const filters = plan.filters ?? {};
  return COMPARISONS.some((suffix) => {
    const value = filters[column + suffix];
    // `column=null` asks for the NULLs: only a plain value counts.
    return (typeof value === 'string' && value !== '' && value !== 'null') || typeof value === 'number';
  });
}
