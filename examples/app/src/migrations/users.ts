import type { Knex } from 'knex';
import { dialectOf, type Migration } from '@crudsmith/core';

/** The users table (the app owns it; the account plugin is handed the model). */
export const usersMigration: Migration = {
  async up(knex) {
    await knex.schema.createTable('users', (t) => {
      t.increments('id');
      t.string('name', 30).notNullable().defaultTo('');
      t.string('username', 20).notNullable().unique();
      t.string('email', 50).notNullable().unique();
      t.string('hashed_password', 100).nullable();
      t.string('profile_image_url', 255).nullable();
      // The rate-limit plugin's tiers (its migrations run first). Unsigned to
      // match `increments` on MariaDB; a tier still assigned cannot be deleted.
      t.integer('tier_id').unsigned().nullable().index().references('id').inTable('tiers');
      t.boolean('is_superuser').notNullable().defaultTo(false);
      t.integer('token_version').notNullable().defaultTo(0);
      t.boolean('is_deleted').notNullable().defaultTo(false);
      t.datetime('deleted_at', { precision: 3 }).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable();
      t.datetime('updated_at', { precision: 3 }).nullable();
    });
    await caseInsensitiveUnique(knex, ['username', 'email']);
  },
  async down(knex) {
    await knex.schema.dropTable('users');
  },
};

// "Bob" and "bob" are one account. MariaDB's default collation already compares without
// case; PostgreSQL and SQLite get unique indexes on lower(column).
async function caseInsensitiveUnique(knex: Knex, columns: string[]): Promise<void> {
  if (dialectOf(knex) === 'mysql') return;
  for (const column of columns)
    await knex.raw(`create unique index ?? on users (lower(??))`, [`users_${column}_lower_unique`, column]);
}

/** Where the generated SECRET_KEY is kept when DATABASE_URL is set. */
export const settingsMigration: Migration = {
  async up(knex) {
    await knex.schema.createTable('app_settings', (t) => {
      t.string('key', 64).primary();
      t.text('value').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('app_settings');
  },
};
