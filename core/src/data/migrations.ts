import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';

/** One migration: what `up` builds, `down` removes. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A named, ordered set of migrations, such as a plugin ships or an app keeps. */
export interface MigrationSet {
  /** Prefix of every migration name in the shared knex_migrations table. */
  name: string;
  migrations: Record<string, Migration>;
  /** Sets that must run before this one (its tables reference theirs), by name. */
  after?: string[];
  /** Sets that must run after this one (their tables reference this one's), by name. */
  before?: string[];
}

/**
 * Combines migration sets into the one knex migration source, in the order given.
 * Names are `<set>/<name>`, so each set keeps its own history in knex_migrations.
 */
export function migrationSource(...sets: MigrationSet[]): Knex.MigrationSource<{ name: string; migration: Migration }> {
  const all = sets.flatMap((set) => Object.entries(set.migrations).map(([name, migration]) => ({ name: `${set.name}/${name}`, migration })));
  const names = new Set<string>();
  for (const { name } of all) {
    if (names.has(name)) throw new ConfigurationError(`Two migrations are named ${name}`);
    names.add(name);
  }
  return {
    getMigrations: async () => all,
    getMigrationName: (entry) => entry.name,
    getMigration: async (entry) => entry.migration,
  };
}

/**
 * Orders migration sets so that every `after` and `before` holds, keeping the given order
 * wherever they leave a choice. An unknown name or a cycle fails, naming the sets.
 */
export function orderMigrationSets(sets: readonly MigrationSet[]): MigrationSet[] {
  const byName = new Map<string, MigrationSet>();
  for (const set of sets) {
    if (byName.has(set.name)) throw new ConfigurationError(`Two migration sets are named ${set.name}`);
    byName.set(set.name, set);
  }
  const needs = new Map(sets.map((set) => [set.name, new Set<string>()]));
  const known = (set: MigrationSet, name: string, word: string) => {
    if (!byName.has(name)) throw new ConfigurationError(`Migration set ${set.name} runs ${word} ${name}, which is not in the app`);
    return name;
  };
  for (const set of sets) {
    for (const name of set.after ?? []) needs.get(set.name)!.add(known(set, name, 'after'));
    for (const name of set.before ?? []) needs.get(known(set, name, 'before'))!.add(set.name);
  }
  const ordered: MigrationSet[] = [];
  const done = new Set<string>();
  while (ordered.length < sets.length) {
    // The first set, in the given order, whose prerequisites have all run.
    const next = sets.find((set) => !done.has(set.name) && [...needs.get(set.name)!].every((name) => done.has(name)));
    if (!next) {
      const stuck = sets.filter((set) => !done.has(set.name)).map((set) => set.name);
      throw new ConfigurationError(`Migration sets wait on each other in a cycle: ${stuck.join(', ')}`);
    }
    ordered.push(next);
    done.add(next.name);
  }
  return ordered;
}
