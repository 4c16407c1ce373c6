import { Exclude } from 'class-transformer';

// class-transformer's metadata storage, the one private part of it crudsmith reads, in
// this one file: class-validator-jsonschema needs it to describe nested classes, and
// `toInstance` needs to know whether a class declares any transformer metadata at all.
// It lives at an internal path (`cjs/storage`) without typings, so it is loaded once,
// guarded: a class-transformer that moved it costs those two features their shortcut
// (nested classes undescribed, every body through `plainToInstance`), never core's load.
// test/core/internals.test.ts asserts it on the installed class-transformer.

/** A class's metadata of one kind, by class (class-transformer's own maps). */
export type MetadataMap = Map<Function, unknown>;

interface Storage {
  _typeMetadatas?: unknown;
  _transformMetadatas?: unknown;
  _exposeMetadatas?: unknown;
  _excludeMetadatas?: unknown;
}

let loaded: Storage | null | undefined;
let maps: MetadataMap[] | null | undefined;

/** class-transformer's default metadata storage, or undefined when this class-transformer keeps it elsewhere. */
export function transformerStorage(): object | undefined {
  if (loaded === undefined) {
    try {
      // A require, not an import: an internal path a later class-transformer may not have.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const storage = require('class-transformer/cjs/storage') as { defaultMetadataStorage?: Storage };
      loaded = storage.defaultMetadataStorage ?? null;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/**
 * The storage's type, transform, expose and exclude maps, or null when they cannot be
 * trusted to be the ones `plainToInstance` reads: a bundler may load class-transformer's
 * ES module build, whose storage is its own. A probe class decorated with the `Exclude`
 * imported beside `plainToInstance` must show up in the maps found.
 */
export function transformerMetadataMaps(): MetadataMap[] | null {
  if (maps !== undefined) return maps;
  maps = null;
  const found = transformerStorage() as Storage | undefined;
  const candidates = found && [
    found._typeMetadatas,
    found._transformMetadatas,
    found._exposeMetadatas,
    found._excludeMetadatas,
  ];
  if (!candidates || !candidates.every((map) => map instanceof Map)) return maps;
  class Probe {}
  Exclude()(Probe.prototype, 'probe');
  if ((candidates[3] as MetadataMap).has(Probe)) maps = candidates as MetadataMap[];
  return maps;
}
