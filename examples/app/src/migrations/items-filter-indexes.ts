import type { Migration } from '@crudsmith/core';

/** The item columns a client may filter for equality, besides `category` (indexed with the table). */
const FILTERED = ['name', 'price', 'last_sold', 'created_at'];

/**
 * Items filter every column (`operators: 'all'`): each equality filter gets the index the
 * startup check asks for, the column then the soft-delete flag, so a filtered list and its
 * count read the matching rows alone.
 */
export const itemsFilterIndexesMigration: Migration = {
  async up(knex) {
    await knex.schema.alterTable('items', (table) => {
      for (const column of FILTERED) table.index([column, 'is_deleted'], `items_${column}`);
    });
  },
  async down(knex) {
    await knex.schema.alterTable('items', (table) => {
      for (const column of FILTERED) table.dropIndex([column, 'is_deleted'], `items_${column}`);
    });
  },
};
