import knexFactory from 'knex';
import { buildApp } from './app';

/**
 * The example's OpenAPI documents by version, built from its routes alone: no database is
 * opened (knex connects on its first query, and building the app runs none) and no server
 * listens. `crudsmith-client generate --input examples/app/src/openapi.ts --out-dir
 * examples/app/client` reads them.
 */
export async function openapi(): Promise<Record<string, Record<string, unknown>>> {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  // The documents do not depend on the key; a fixed one keeps the app from reading or writing a key file.
  const app = buildApp(knex, { secretKey: 'openapi-documents-only-never-serving-0123456789' });
  try {
    return Object.fromEntries(app.versions.versions.map((v) => [v.label, v.openapi as Record<string, unknown>]));
  } finally {
    await app.close();
    await knex.destroy();
  }
}
