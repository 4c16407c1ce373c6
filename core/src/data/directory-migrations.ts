import type { Knex } from 'knex';
import { fsMigrations } from './knex-internals';

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
  const source = fsMigrations(directory, options.sortDirsSeparately ?? false, options.loadExtensions);
  // Its own extensions, whatever the migrator it is handed to passes.
  return {
    getMigrations: () => source.getMigrations(undefined as unknown as string[]),
    getMigrationName: (spec) => source.getMigrationName(spec),
    getMigration: (spec) => source.getMigration(spec),
  };
}
