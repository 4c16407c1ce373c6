import type { Migration } from '@crudsmith/core';

/** Table names of roles, their permissions, users' roles and the version counter that invalidates caches. */
export interface AccessTables {
  roles: string;
  rolePermissions: string;
  userRoles: string;
  accessVersion: string;
}

/**
 * Roles, permissions and assignments. `user_id` is a string (as in the plugin's other
 * tables) so any id type of the app's user model fits; the version table holds one row
 * whose counter every change bumps, so other processes drop their cached access.
 */
export function accessMigration(tables: AccessTables): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(tables.roles, (t) => {
        t.increments('id');
        t.string('name', 64).notNullable().unique();
        t.bigInteger('created_at').notNullable();
      });
      await knex.schema.createTable(tables.rolePermissions, (t) => {
        t.integer('role_id').unsigned().notNullable().references('id').inTable(tables.roles).onDelete('CASCADE');
        t.string('permission', 100).notNullable();
        t.primary(['role_id', 'permission']);
      });
      await knex.schema.createTable(tables.userRoles, (t) => {
        t.string('user_id', 64).notNullable();
        t.integer('role_id').unsigned().notNullable().references('id').inTable(tables.roles).onDelete('CASCADE');
        t.primary(['user_id', 'role_id']);
      });
      await knex.schema.createTable(tables.accessVersion, (t) => {
        t.integer('id').primary();
        t.bigInteger('version').notNullable();
      });
      await knex(tables.accessVersion).insert({ id: 1, version: 0 });
    },
    async down(knex) {
      for (const table of [tables.accessVersion, tables.userRoles, tables.rolePermissions, tables.roles])
        await knex.schema.dropTable(table);
    },
  };
}
