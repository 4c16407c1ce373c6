// Every name ever tried at sign-in has a lockout row, known or not, so anonymous traffic
// could grow the table without end: rows idle past `resetAfterSeconds` and not locked are
// deleted as new names come, at most once a minute, and nothing else changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lockout, loginFailureMigration, loginLockoutsMigration } from '@crudsmith/core/auth';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

const TABLE = 'retention_login_failures';
const HOUR = 3_600_000;

describe.each(ENGINES)('lockout rows of forgotten names are swept on %s', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openDatabase(engine);
    await loginFailureMigration(TABLE).up(db.knex);
    await loginLockoutsMigration(TABLE).up(db.knex);
  });
  afterAll(async () => db?.destroy());

  it('deletes idle unlocked rows on a new name’s first attempt, keeps live and locked ones, once a minute at most', async () => {
    const lockout = new Lockout(db.knex, TABLE, {
      threshold: 1,
      baseSeconds: 1,
      maxSeconds: 86_400,
      resetAfterSeconds: 3600,
    });
    const t0 = 1_800_000_000_000;
    await lockout.attempt('name:idle', t0);
    await lockout.attempt('name:locked', t0);
    await lockout.fail('name:locked', t0);
    // A long lock, set directly: still locked at the first sweep.
    await db
      .knex(TABLE)
      .where({ key: 'name:locked' })
      .update({ locked_until: t0 + 3 * HOUR });
    await lockout.attempt('name:recent', t0 + 2 * HOUR);
    const keys = async () => (await db.knex(TABLE).orderBy('key').pluck('key')).map(String);
    expect(await keys()).toEqual(['name:locked', 'name:recent']);
    // Within the minute a new name does not sweep again, though a row is past it.
    await db
      .knex(TABLE)
      .insert({ key: 'name:planted', failures: 1, lockouts: 0, last_failure_at: t0, locked_until: 0 });
    await lockout.attempt('name:soon', t0 + 2 * HOUR + 30_000);
    expect(await keys()).toEqual(['name:locked', 'name:planted', 'name:recent', 'name:soon']);
    // Later it does: the lock has ended and `recent` is an hour idle; `soon` is not yet.
    await lockout.attempt('name:later', t0 + 3 * HOUR + 1000);
    expect(await keys()).toEqual(['name:later', 'name:soon']);
    // A swept name starts afresh, as it would have on its stale row.
    expect(await lockout.attempt('name:idle', t0 + 4 * HOUR)).toEqual({ allowed: true });
  });
});
