import type { Knex } from 'knex';
import { ConfigurationError } from './errors/configuration-error';

/** One migration: what `up` builds, `down` removes. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A named, ordered set of migrations, such as a plugin ships or an app keeps. */
export interface MigrationSet {
  /** Prefix of every migration name in the migration table that records it (`<set>/<name>`). */
  name: string;
  migrations: Record<string, Migration>;
  /** Sets that must run before this one (its tables reference theirs), by name. */
  after?: string[];
  /** Sets that must run after this one (their tables reference this one's), by name. */
  before?: string[];
}

/**
 * Migrations an app already runs with knex's own migrator (a directory, say), placed
 * among the sets by `after`/`before` like a set, and recorded under knex's own names, so
 * the history the app has keeps matching.
 */
export interface KnexMigrations {
  name: string;
  /** Where the migrations come from: `directoryMigrations('./migrations')`, or any knex migration source. */
  source: Knex.MigrationSource<unknown>;
  after?: string[];
  before?: string[];
}

/** Either kind of part a combined migration source is made of. */
export type MigrationPart = MigrationSet | KnexMigrations;

/** One entry of a combined source: its recorded name and how to load it. */
export interface SourceEntry {
  name: string;
  load(): Promise<Migration>;
}

/**
 * Combines migration sets into the one knex migration source, in the order given.
 * Names are `<set>/<name>`, so each set keeps its own history in the migration table.
 */
export function migrationSource(...sets: MigrationSet[]): Knex.MigrationSource<SourceEntry> {
  return combinedSource(sets);
}

/**
 * The knex migration source of sets and knex migration lists, in the order given; `wrap`
 * may change each set's migration (lists are the app's own and stay as they are).
 */
export function combinedSource(
  parts: readonly MigrationPart[],
  wrap?: (migration: Migration, name: string) => Migration,
): Knex.MigrationSource<SourceEntry> {
  const list = async (loadExtensions: readonly string[]): Promise<SourceEntry[]> => {
    const groups = await Promise.all(
      parts.map((part) => ('source' in part ? entriesOf(part.source, loadExtensions) : setEntries(part, wrap))),
    );
    const all = groups.flat();
    const names = new Set<string>();
    for (const { name } of all) {
      if (names.has(name)) throw new ConfigurationError(`Two migrations are named ${name}`);
      names.add(name);
    }
    return all;
  };
  // A set's names are known at once: a repeated one fails when the source is made.
  checkNow(parts.filter((part): part is MigrationSet => !('source' in part)));
  return {
    getMigrations: list,
    getMigrationName: (entry) => entry.name,
    getMigration: (entry) => entry.load(),
  };
}

function checkNow(sets: readonly MigrationSet[]): void {
  const names = new Set<string>();
  for (const set of sets) {
    for (const name of Object.keys(set.migrations)) {
      const full = `${set.name}/${name}`;
      if (names.has(full)) throw new ConfigurationError(`Two migrations are named ${full}`);
      names.add(full);
    }
  }
}

function setEntries(set: MigrationSet, wrap?: (migration: Migration, name: string) => Migration): SourceEntry[] {
  return Object.entries(set.migrations).map(([name, migration]) => {
    const full = `${set.name}/${name}`;
    const loaded = wrap ? wrap(migration, full) : migration;
    return { name: full, load: async () => loaded };
  });
}

async function entriesOf(
  source: Knex.MigrationSource<unknown>,
  loadExtensions: readonly string[],
): Promise<SourceEntry[]> {
  const specs = await source.getMigrations(loadExtensions);
  return specs.map((spec) => ({
    name: source.getMigrationName(spec),
    load: async () => (await source.getMigration(spec)) as Migration,
  }));
}

/**
 * Orders migration sets so that every `after` and `before` holds, keeping the given order
 * wherever they leave a choice. An unknown name or a cycle fails, naming the sets.
 */
export function orderMigrationSets<T extends Pick<MigrationSet, 'name' | 'after' | 'before'>>(sets: readonly T[]): T[] {
  const byName = new Map<string, T>();
  for (const set of sets) {
    if (byName.has(set.name)) throw new ConfigurationError(`Two migration sets are named ${set.name}`);
    byName.set(set.name, set);
  }
  const needs = new Map(sets.map((set) => [set.name, new Set<string>()]));
  const known = (set: T, name: string, word: string) => {
    if (!byName.has(name))
      throw new ConfigurationError(`Migration set ${set.name} runs ${word} ${name}, which is not in the app`);
    return name;
  };
  for (const set of sets) {
    for (const name of set.after ?? []) needs.get(set.name)!.add(known(set, name, 'after'));
    for (const name of set.before ?? []) needs.get(known(set, name, 'before'))!.add(set.name);
  }
  const ordered: T[] = [];
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
