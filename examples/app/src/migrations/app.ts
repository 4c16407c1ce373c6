import type { MigrationSet } from '@crudsmith/core';
import { postsMigration } from './posts';
import { settingsMigration, usersMigration } from './users';
import { usersVerifiedMigration } from './users-verified';
import { itemsFilterIndexesMigration } from './items-filter-indexes';
import { itemsFulltextMigration } from './items-fulltext';
import { notesMigration } from './notes';
import { tagsMigration } from './tags';

/** The example application's own tables; users reference the rate-limit plugin's tiers. */
export const appMigrations: MigrationSet = {
  name: 'app',
  after: ['rate-limit'],
  migrations: {
    '0001_items': {
      async up(knex) {
        await knex.schema.createTable('items', (t) => {
          t.increments('id');
          t.string('name', 100).nullable();
          t.text('description').nullable();
          t.string('category', 50).nullable();
          t.decimal('price', 12, 2).nullable();
          t.datetime('last_sold', { precision: 3 }).nullable();
          t.datetime('created_at', { precision: 3 }).notNullable();
          t.datetime('updated_at', { precision: 3 }).nullable();
          t.boolean('is_deleted').notNullable().defaultTo(false);
          t.datetime('deleted_at', { precision: 3 }).nullable();
          t.index(['category']);
        });
      },
      async down(knex) {
        await knex.schema.dropTable('items');
      },
    },
    '0002_users': usersMigration,
    '0003_settings': settingsMigration,
    '0004_posts': postsMigration,
    '0005_users_is_verified': usersVerifiedMigration,
    '0006_items_fulltext': itemsFulltextMigration,
    '0007_notes': notesMigration,
    '0008_tags': tagsMigration,
    '0009_items_filter_indexes': itemsFilterIndexesMigration,
  },
};
