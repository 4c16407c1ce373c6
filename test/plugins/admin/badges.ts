import { Model } from 'objection';
import type { MigrationSet } from '@crudsmith/core';
import type { ModelView } from '@crudsmith/admin';
import { AppUser, Tier } from './fixture';

// Badges, linked many-to-many to tiers and to users: the relations area and the Chromium
// walk-through edit these sets.

export class Badge extends Model {
  static override tableName = 'badges';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, title: { type: 'string', maxLength: 20 } },
  };
}

// A user with badges too: a view with a password and a many-to-many set.
export class BadgedUser extends AppUser {
  static override get relationMappings() {
    return {
      badges: {
        relation: Model.ManyToManyRelation,
        modelClass: Badge,
        join: {
          from: 'app_users.id',
          through: { from: 'user_badges.user_id', to: 'user_badges.badge_id' },
          to: 'badges.id',
        },
      },
    };
  }
}

// A tier with badges: a many-to-many relation through tier_badges; its users have badges too.
export class BadgedTier extends Tier {
  static override get relationMappings() {
    return {
      ...super.relationMappings,
      users: { ...super.relationMappings.users, modelClass: BadgedUser },
      badges: {
        relation: Model.ManyToManyRelation,
        modelClass: Badge,
        join: {
          from: 'tiers.id',
          through: { from: 'tier_badges.tier_id', to: 'tier_badges.badge_id' },
          to: 'badges.id',
        },
      },
    };
  }
}

/** The badges' view: read-only, named by `title`, offered in the tiers' and users' badge sets. */
export const badgesView: ModelView = {
  model: Badge,
  allowedActions: ['view'],
  createSchema: ['title'],
  updateSchema: ['title'],
  displayField: 'title',
};

export const badgeMigrations: MigrationSet = {
  name: 'admin-test-badges',
  migrations: {
    '0001_badges': {
      async up(knex) {
        await knex.schema.createTable('badges', (t) => {
          t.increments('id');
          t.string('title', 20).notNullable();
        });
        await knex.schema.createTable('tier_badges', (t) => {
          t.integer('tier_id').unsigned().notNullable().references('id').inTable('tiers');
          t.integer('badge_id').unsigned().notNullable().references('id').inTable('badges');
          t.primary(['tier_id', 'badge_id']);
        });
        await knex.schema.createTable('user_badges', (t) => {
          t.integer('user_id').unsigned().notNullable().references('id').inTable('app_users');
          t.integer('badge_id').unsigned().notNullable().references('id').inTable('badges');
          t.primary(['user_id', 'badge_id']);
        });
      },
      async down(knex) {
        await knex.schema.dropTable('user_badges');
        await knex.schema.dropTable('tier_badges');
        await knex.schema.dropTable('badges');
      },
    },
  },
};
