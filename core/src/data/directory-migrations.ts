import type { Knex } from 'knex';

type FsMigrationsClass = new (
  directories: string | string[],
  sortDirsSeparately: boolean,
  loadExtensions?: string[],
) => Knex.MigrationSource<unknown>;

/** How knex reads a migration directory (the same options as its migrator's). */
export interface DirectoryMigrationsOptions {
  /** Sort the files of each directory on their own rather than all together (knex's `sortDirsSeparately`). */
  sortDirsSeparately?: boolean;
  /** File extensions read as migrations (knex's `loadExtensions`; knex's list by default). */
  loadExtensions?: string[];
}

/**
 * The migrations of a directory (or several) exactly as knex's migrator reads them, by
 * knex's own loader: the same files, names and order, so a history knex recorded from that
 * directory matches. Relative directories are read from the process's working directory.
 */
export function directoryMigrations(
  directory: string | string[],
  options: DirectoryMigrationsOptions = {},
): Knex.MigrationSource<unknown> {
  // knex exports no name for its directory source; its migrator builds this one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FsMigrations } = require('knex/lib/migrations/migrate/sources/fs-migrations') as {
    FsMigrations: FsMigrationsClass;
  };
  const source = new FsMigrations(directory, options.sortDirsSeparately ?? false, options.loadExtensions);
  // Its own extensions, whatever the migrator it is handed to passes.
  return {
    getMigrations: () => source.getMigrations(undefined as unknown as string[]),
    getMigrationName: (spec) => source.getMigrationName(spec),
    getMigration: (spec) => source.getMigration(spec),
  };
}
