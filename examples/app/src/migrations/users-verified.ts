import type { Migration } from '@crudsmith/core';

/**
 * `users.is_verified`. The account plugin picks the column up and sets
 * it false for new accounts; the example lets them sign in without verification.
 */
export const usersVerifiedMigration: Migration = {
  async up(knex) {
    await knex.schema.alterTable('users', (t) => {
      t.boolean('is_verified').notNullable().defaultTo(false);
    });
  },
  async down(knex) {
    await knex.schema.alterTable('users', (t) => {
      t.dropColumn('is_verified');
    });
  },
};
