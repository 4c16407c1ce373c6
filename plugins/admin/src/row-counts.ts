import { dialectOf } from '@crudsmith/core';
import type { Knex } from 'knex';
import type { ResolvedView } from './model-view';

/** A count for the dashboard: exact, or the planner's estimate on a big table. */
export interface RowCount {
  value: number;
  estimated: boolean;
}

const FRESH_MS = 10_000;

/**
 * The dashboard's row counts. A COUNT(*) reads the whole table on PostgreSQL (and InnoDB),
 * so one per model per render would make the dashboard as slow as the biggest table. On
 * PostgreSQL and MariaDB the engine's statistics are read first (one cheap catalog query);
 * past `exactLimit` rows that estimate is shown, marked as such; below it the exact count
 * runs. Either way a count is kept for 10 seconds. SQLite counts exactly.
 */
export class RowCounts {
  private readonly cache = new Map<string, { at: number; count: RowCount }>();

  constructor(
    private readonly knex: Knex,
    private readonly exactLimit: number,
  ) {}

  async of(view: ResolvedView, now = Date.now()): Promise<RowCount> {
    const cached = this.cache.get(view.name);
    if (cached && now - cached.at < FRESH_MS) return cached.count;
    const estimate = await this.estimate(view.info.table);
    const count =
      estimate !== null && estimate > this.exactLimit
        ? { value: estimate, estimated: true }
        : { value: await view.repository.count(this.knex), estimated: false };
    this.cache.set(view.name, { at: now, count });
    return count;
  }

  /** Drops a model's kept count (after the admin wrote to it). */
  forget(name: string): void {
    this.cache.delete(name);
  }

  private async estimate(table: string): Promise<number | null> {
    const dialect = dialectOf(this.knex);
    if (dialect === 'pg') {
      const result = await this.knex.raw('select reltuples::bigint as n from pg_class where oid = to_regclass(?)', [
        table,
      ]);
      const n = Number(result.rows[0]?.n);
      return Number.isFinite(n) && n >= 0 ? n : null;
    }
    if (dialect === 'mysql') {
      const [rows] = await this.knex.raw(
        'select table_rows as n from information_schema.tables where table_schema = database() and table_name = ?',
        [table],
      );
      const n = Number(rows[0]?.n);
      return Number.isFinite(n) ? n : null;
    }
    return null;
  }
}
