import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { combinedSource, type Migration, type MigrationPart } from '../migrations';

/** The table where `bootstrap` records the migrations it runs (plugins' sets and the app's sets given to it). */
export const CRUDSMITH_MIGRATIONS = 'crudsmith_migrations';

/** A migration table, as knex's migrator names it. */
export interface MigrationTable {
  tableName: string;
  schemaName?: string;
}

/** The app's own knex history: the table its knex configuration names (`knex_migrations` by default). */
export function appMigrationTable(knex: Knex): MigrationTable {
  const config = (knex.client.config as Knex.Config).migrations;
  return { tableName: config?.tableName ?? 'knex_migrations', schemaName: config?.schemaName ?? undefined };
}

/**
 * Runs the sets with knex's migrator, recorded in `tableName` (with its own lock table).
 * A migration that the app's own knex history already records (an install from before
 * crudsmith kept its own table, or one the app ran through `app.migrationSource`) is
 * recorded without running again. A set no longer in the app (a plugin taken out) leaves
 * its history, which is not an error.
 */
export async function runMigrationSets(knex: Knex, parts: readonly MigrationPart[], tableName: string): Promise<void> {
  const elsewhere = appMigrationTable(knex);
  const schemaName = elsewhere.schemaName;
  if (elsewhere.tableName === tableName)
    throw new ConfigurationError(
      `crudsmith records its migrations in ${tableName}, which is the app's own knex migration table: give bootstrap another migrationTable`,
    );
  await knex.migrate.latest({
    migrationSource: combinedSource(parts, (migration, name) => unlessRecorded(migration, name, () => elsewhere)),
    tableName,
    ...(schemaName ? { schemaName } : {}),
    disableMigrationsListValidation: true,
  });
}

/**
 * The knex migration source an app hands its own migrator: the sets and its own lists in
 * order; a set's migration that `tableName` (crudsmith's record) holds is recorded without
 * running again.
 */
export function appMigrationSource(parts: readonly MigrationPart[], tableName: string): Knex.MigrationSource<unknown> {
  return combinedSource(parts, (migration, name) =>
    unlessRecorded(migration, name, (knex) => ({ tableName, schemaName: appMigrationTable(knex).schemaName })),
  );
}

// `up` runs only when the other record does not hold the name; `down` always runs.
function unlessRecorded(migration: Migration, name: string, other: (knex: Knex) => MigrationTable): Migration {
  return {
    ...migration,
    async up(knex) {
      if (await isRecorded(knex, other(knex), name)) return;
      await migration.up(knex);
    },
    down: (knex) => migration.down(knex),
  };
}

async function isRecorded(knex: Knex, table: MigrationTable, name: string): Promise<boolean> {
  const schema = table.schemaName ? knex.schema.withSchema(table.schemaName) : knex.schema;
  if (!(await schema.hasTable(table.tableName))) return false;
  const query = table.schemaName ? knex.withSchema(table.schemaName) : knex;
  return (await query.from(table.tableName).where({ name }).first('name')) !== undefined;
}
