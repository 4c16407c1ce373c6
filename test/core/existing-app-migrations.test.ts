// Plugins' migrations beside an app's own knex history: the app keeps running
// `knex.migrate.latest()` on its files, crudsmith records what it runs in its own table,
// the app's users may reference the rate-limit plugin's tiers, and installs whose plugin
// migrations knex_migrations already records start without running them again.
import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryMigrations, migrationSource } from '@crudsmith/core';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { appWithEveryPlugin, migrationDirectory, USERS_TIER } from '../fixtures/existing-app';

const names = async (db: TestDatabase, table: string) =>
  (await db.knex(table).orderBy('id').select('name')).map((row: { name: string }) => row.name);

describe.each(ENGINES)("an existing app's migrations beside the plugins' (%s)", (engine) => {
  let db: TestDatabase;
  let files: ReturnType<typeof migrationDirectory>;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    db = await openDatabase(engine);
    files = migrationDirectory();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await db.destroy();
    files.remove();
  });
  const start = async (app = appWithEveryPlugin(db.knex)) => {
    closers.push(() => app.close());
    await app.start(db.knex);
    return app;
  };

  it('starts every plugin over an app whose own migrations knex already applied, and its migrator keeps working', async () => {
    await db.knex.migrate.latest({ directory: files.directory });
    const app = await start();
    expect(await names(db, 'knex_migrations')).toEqual(['20240101000000_init.js']);
    expect(await names(db, 'crudsmith_migrations')).toEqual(
      app.migrations.flatMap((set) => Object.keys(set.migrations).map((name) => `${set.name}/${name}`)),
    );
    for (const table of ['tiers', 'rate_limits', 'admin_users', 'account_sessions'])
      expect(await db.knex.schema.hasTable(table), table).toBe(true);
    // The app adds a migration and runs its migrator, then restarts: neither sees the other's record.
    files.add('20240601000000_users_tier.js', USERS_TIER);
    await db.knex.migrate.latest({ directory: files.directory });
    expect(await names(db, 'knex_migrations')).toEqual(['20240101000000_init.js', '20240601000000_users_tier.js']);
    await start();
  });

  it("lets the app's users reference the plugin's tiers: plugins' sets first, then the app's migrator", async () => {
    files.add('20240601000000_users_tier.js', USERS_TIER);
    const app = appWithEveryPlugin(db.knex);
    await app.migrate(db.knex);
    await db.knex.migrate.latest({ directory: files.directory });
    await start(app);
    const [tier] = await db.knex('tiers').insert({ name: 'pro', created_at: new Date() }).returning('id');
    const tierId = typeof tier === 'object' ? tier.id : tier;
    await db.knex('users').insert({ username: 'ann', email: 'ann@example.com', tier_id: tierId });
    await expect(
      db.knex('users').insert({ username: 'bob', email: 'bob@example.com', tier_id: tierId + 1000 }),
    ).rejects.toThrow(/foreign key/i);
  });

  it("interleaves the app's own files with the plugins' sets through one migration source its migrator runs", async () => {
    // The app's history is applied; its new file needs tiers.
    await db.knex.migrate.latest({ directory: files.directory });
    files.add('20240601000000_users_tier.js', USERS_TIER);
    const app = appWithEveryPlugin(db.knex);
    const source = () =>
      app.migrationSource({ name: 'app', source: directoryMigrations(files.directory), after: ['rate-limit'] });
    await db.knex.migrate.latest({ migrationSource: source() });
    const recorded = await names(db, 'knex_migrations');
    expect(recorded.indexOf('rate-limit/0001_tiers_and_rate_limits')).toBeLessThan(
      recorded.indexOf('20240601000000_users_tier.js'),
    );
    expect(recorded[0]).toBe('20240101000000_init.js');
    // start records what the app's migrator ran, without running it again (a second CREATE TABLE would fail).
    await start(app);
    expect(await names(db, 'crudsmith_migrations')).toContain('rate-limit/0001_tiers_and_rate_limits');
    await db.knex.migrate.latest({ migrationSource: source() });
    expect(await db.knex.schema.hasColumn('users', 'tier_id')).toBe(true);
  });

  it('starts an install whose plugin migrations knex_migrations recorded, without running them again', async () => {
    const app = appWithEveryPlugin(db.knex);
    // How earlier versions ran them: every set in knex_migrations.
    await db.knex.migrate.latest({ migrationSource: migrationSource(...app.migrations) });
    const before = await names(db, 'knex_migrations');
    await start(app);
    expect(await names(db, 'knex_migrations')).toEqual(before);
    expect(await names(db, 'crudsmith_migrations')).toEqual(before);
    await start();
  });

  it("records its migrations in the table the app names, and refuses the app's own knex history", async () => {
    await start(appWithEveryPlugin(db.knex, { migrationTable: 'plugin_migrations' }));
    expect(await db.knex.schema.hasTable('plugin_migrations')).toBe(true);
    await expect(appWithEveryPlugin(db.knex, { migrationTable: 'knex_migrations' }).migrate(db.knex)).rejects.toThrow(
      /app's own knex migration table/,
    );
  });
});
