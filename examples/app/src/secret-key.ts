import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { DuplicateValueError, mapDatabaseError } from '@crudsmith/core';
import { randomToken } from '@crudsmith/core/auth';

/**
 * SECRET_KEY, or one generated once and kept where every process of the deployment
 * finds it: in the database when DATABASE_URL is set, else under DATA_DIR. A generated
 * key logs a warning: production should set SECRET_KEY. The provider looks once and
 * keeps the answer (looking again after a failure), so the uses that share it (access
 * tokens, cursors) cost one lookup and one warning.
 */
export function secretKeyProvider(
  settings: { secretKey?: string; databaseUrl?: string; dataDir: string },
  knex: Knex,
  log: (line: string) => void = console.warn,
): () => Promise<string> {
  let found: Promise<string> | undefined;
  const look = async (): Promise<string> => {
    if (settings.secretKey) return settings.secretKey;
    log(
      'SECRET_KEY is not set: using a generated key kept ' +
        (settings.databaseUrl ? 'in the database' : `under ${settings.dataDir}`) +
        '; set SECRET_KEY in production.',
    );
    return settings.databaseUrl ? fromDatabase(knex) : fromFile(settings.dataDir);
  };
  return () =>
    (found ??= look().catch((error: unknown) => {
      found = undefined;
      throw error;
    }));
}

async function fromDatabase(knex: Knex): Promise<string> {
  const stored = await knex('app_settings').where('key', 'secret_key').first('value');
  if (stored) return String(stored.value);
  try {
    await knex('app_settings').insert({ key: 'secret_key', value: randomToken(48) });
  } catch (error) {
    // Another process generated it first: use theirs.
    if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
  }
  return String((await knex('app_settings').where('key', 'secret_key').first('value')).value);
}

function fromFile(dataDir: string): string {
  const path = join(dataDir, 'secret_key');
  mkdirSync(dataDir, { recursive: true });
  try {
    // wx: created by exactly one process; the others read it.
    writeFileSync(path, randomToken(48), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
}
