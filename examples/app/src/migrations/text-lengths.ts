import type { Migration } from '@crudsmith/core';

/** The longest item description and post text the example stores, in characters. */
export const ITEM_DESCRIPTION_MAX = 2000;
export const POST_TEXT_MAX = 10_000;

/**
 * Items' descriptions had no length limit, so a few rows could make a page of hundreds of
 * megabytes. The create and update schemas now bound them (and posts' text); rows written
 * before are cut to the same bounds, so every stored row meets what the API promises. The
 * columns stay `text`: changing a column's type on SQLite means rebuilding the table.
 */
export const textLengthsMigration: Migration = {
  async up(knex) {
    const length = knex.client.config.client === 'better-sqlite3' || knex.client.config.client === 'sqlite3' ? 'length' : 'char_length';
    await knex('items')
      .whereRaw(`${length}(??) > ?`, ['description', ITEM_DESCRIPTION_MAX])
      .update({ description: knex.raw('substr(??, 1, ?)', ['description', ITEM_DESCRIPTION_MAX]) });
    await knex('posts')
      .whereRaw(`${length}(??) > ?`, ['text', POST_TEXT_MAX])
      .update({ text: knex.raw('substr(??, 1, ?)', ['text', POST_TEXT_MAX]) });
  },
  async down() {
    // Cut text cannot be restored.
  },
};
