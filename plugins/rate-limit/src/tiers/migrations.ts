import type { MigrationSet } from '@crudsmith/core';

/**
 * The plugin's tables: `tiers` and their per-path
 * `rate_limits`. The app lists this set before its own, since its users reference tiers.
 */
export const rateLimitMigrations: MigrationSet = {
  name: 'rate-limit',
  migrations: {
    '0001_tiers_and_rate_limits': {
      async up(knex) {
        await knex.schema.createTable('tiers', (t) => {
          t.increments('id');
          t.string('name', 100).notNullable().unique();
          t.text('description').nullable();
          t.datetime('created_at', { precision: 3 }).notNullable();
        });
        await knex.schema.createTable('rate_limits', (t) => {
          t.increments('id');
          t.integer('tier_id').unsigned().notNullable().references('id').inTable('tiers').onDelete('CASCADE');
          t.string('name', 100).notNullable();
          // Stored sanitized (`api_v1_items`), as the limiter looks it up.
          t.string('path', 255).notNullable();
          t.integer('limit').notNullable();
          t.integer('period').notNullable();
          t.unique(['tier_id', 'path']);
        });
      },
      async down(knex) {
        await knex.schema.dropTable('rate_limits');
        await knex.schema.dropTable('tiers');
      },
    },
  },
};
