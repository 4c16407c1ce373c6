import type { Migration } from '@crudsmith/core';

/** Users' posts; a user's hard delete takes their posts with it. */
export const postsMigration: Migration = {
  async up(knex) {
    await knex.schema.createTable('posts', (t) => {
      t.increments('id');
      t.string('title', 100).notNullable();
      t.text('text').notNullable();
      // unsigned: MariaDB's increments() is an unsigned int, and a foreign key must match it.
      t.integer('author_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.index(['author_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('posts');
  },
};
