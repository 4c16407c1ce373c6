import type { Migration } from '@crudsmith/core';

/** Tags, and which posts carry them: a post's or a tag's hard delete takes its links with it. */
export const tagsMigration: Migration = {
  async up(knex) {
    await knex.schema.createTable('tags', (t) => {
      t.increments('id');
      t.string('name', 50).notNullable().unique();
    });
    await knex.schema.createTable('post_tags', (t) => {
      // unsigned: MariaDB's increments() is an unsigned int, and a foreign key must match it.
      t.integer('post_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
      t.integer('tag_id').unsigned().notNullable().references('id').inTable('tags').onDelete('CASCADE');
      t.primary(['post_id', 'tag_id']);
      t.index(['tag_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('post_tags');
    await knex.schema.dropTable('tags');
  },
};
