import { dialectOf, type Migration } from '@crudsmith/core';

/** The item columns whose filters allow `match` (full-text search). */
const MATCHED = ['name', 'category'];

/**
 * MariaDB answers `MATCH ... AGAINST` only over a FULLTEXT index, so `name__match` and
 * `category__match` need one each. PostgreSQL searches with `to_tsvector` without an index
 * (a small table needs none), and SQLite refuses `match` with a 400 either way. The engine
 * is asked of knex's client, not its configuration: `withDatabaseTimeouts` replaces the
 * configured client name by a class.
 */
export const itemsFulltextMigration: Migration = {
  async up(knex) {
    if (dialectOf(knex) !== 'mysql') return;
    for (const column of MATCHED)
      await knex.raw('ALTER TABLE items ADD FULLTEXT INDEX ?? (??)', [`items_${column}_ft`, column]);
  },
  async down(knex) {
    if (dialectOf(knex) !== 'mysql') return;
    for (const column of MATCHED) await knex.raw('ALTER TABLE items DROP INDEX ??', [`items_${column}_ft`]);
  },
};
