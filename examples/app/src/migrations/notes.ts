import type { Migration } from '@crudsmith/core';

/** Users' notes (soft-deleted by their owner); a user's hard delete takes their notes with it. */
export const notesMigration: Migration = {
  async up(knex) {
    await knex.schema.createTable('notes', (t) => {
      t.increments('id');
      t.string('title', 100).notNullable();
      t.text('body').notNullable();
      t.boolean('shared').notNullable().defaultTo(false);
      // unsigned: MariaDB's increments() is an unsigned int, and a foreign key must match it.
      t.integer('owner_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.string('reviewer_comment', 1000).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.boolean('is_deleted').notNullable().defaultTo(false);
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.index(['owner_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('notes');
  },
};
