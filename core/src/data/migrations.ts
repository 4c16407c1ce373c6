import type { Knex } from 'knex';

/** One migration: what `up` builds, `down` removes. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A named, ordered set of migrations, such as a plugin ships. */
export interface MigrationSet {
  /** Prefix of every migration name in the shared knex_migrations table. */
  name: string;
  migrations: Record<string, Migration>;
}

/**
 * Combines migration sets into the one knex migration source, in the order given (the
 * app lists plugins and its own set in dependency order). Names are `<set>/<name>`.
 */
export function migrationSource(...sets: MigrationSet[]): Knex.MigrationSource<{ name: string; migration: Migration }> {
  const all = sets.flatMap((set) => Object.entries(set.migrations).map(([name, migration]) => ({ name: `${set.name}/${name}`, migration })));
  const names = new Set<string>();
  for (const { name } of all) {
    if (names.has(name)) throw new Error(`Two migrations are named ${name}`);
    names.add(name);
  }
  return {
    getMigrations: async () => all,
    getMigrationName: (entry) => entry.name,
    getMigration: async (entry) => entry.migration,
  };
}
