import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateValueError, migrationSource, NotFoundError, ValidationError } from '@crudsmith/core';
import { rateLimitMigrations, TierService } from '@crudsmith/rate-limit';
// Internal: what the tier cache loads.
import { loadRateLimits } from '../../../plugins/rate-limit/src/tiers/tier-service';
import { ENGINES, openDatabase, type TestDatabase } from '../../fixtures/db';

describe.each(ENGINES)('tiers and rate limits on %s', (engine) => {
  let db: TestDatabase;
  let changes = 0;
  let tiers: TierService;

  beforeAll(async () => {
    db = await openDatabase(engine);
    await db.knex.migrate.latest({ migrationSource: migrationSource(rateLimitMigrations) });
    tiers = new TierService(db.knex, async () => void changes++);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  beforeEach(async () => {
    await db.knex('rate_limits').delete();
    await db.knex('tiers').delete();
    changes = 0;
  });

  it('migrates up and down under the rate-limit/ prefix', async () => {
    const names = (await db.knex('knex_migrations').select('name')).map((r) => r.name);
    expect(names).toEqual(['rate-limit/0001_tiers_and_rate_limits']);
    await db.knex.migrate.rollback({ migrationSource: migrationSource(rateLimitMigrations) }, true);
    expect(await db.knex.schema.hasTable('tiers')).toBe(false);
    await db.knex.migrate.latest({ migrationSource: migrationSource(rateLimitMigrations) });
    expect(await db.knex.schema.hasTable('rate_limits')).toBe(true);
  });

  it('creates, lists and gets tiers; a duplicate name is 409', async () => {
    const free = await tiers.createTier({ name: 'free', description: 'Free tier' });
    expect(free).toMatchObject({ id: expect.any(Number), name: 'free', description: 'Free tier' });
    expect(free.created_at).toBeInstanceOf(Date);
    await tiers.createTier({ name: 'pro' });
    await expect(tiers.createTier({ name: 'free', description: 'again' })).rejects.toThrow(DuplicateValueError);
    await expect(tiers.createTier({ name: 'free', description: 'again' })).rejects.toMatchObject({
      status: 409,
      detail: "Tier 'free' already exists",
    });
    expect((await tiers.listTiers()).map((t) => t.name)).toEqual(['free', 'pro']);
    expect(await tiers.getTier('pro')).toMatchObject({ name: 'pro', description: null });
    await expect(tiers.getTier('gold')).rejects.toMatchObject({ status: 404, detail: "Tier 'gold' not found" });
  });

  it('refuses a tier body without a name (422)', async () => {
    await expect(tiers.createTier({ description: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(tiers.createTier('free')).rejects.toMatchObject({ status: 422 });
  });

  it('stores a rate limit with its path sanitized, lists it, and tells the caches', async () => {
    await tiers.createTier({ name: 'free', description: '' });
    const limit = await tiers.createRateLimit('free', { name: 'items', path: '/api/v1/items/', limit: 10, period: 60 });
    expect(limit).toMatchObject({
      name: 'items',
      path: 'api_v1_items',
      limit: 10,
      period: 60,
      tier_id: expect.any(Number),
    });
    expect(changes).toBe(1);
    expect(await tiers.listRateLimits('free')).toEqual([limit]);
    expect(await loadRateLimits(db.knex)).toEqual([limit]);
  });

  it('answers 404 for an unknown tier, 409 for a second limit on the same path, 422 for bad numbers', async () => {
    await tiers.createTier({ name: 'free' });
    const ok = { name: 'items', path: 'api/v1/items', limit: 10, period: 60 };
    await expect(tiers.createRateLimit('gold', ok)).rejects.toBeInstanceOf(NotFoundError);
    await expect(tiers.listRateLimits('gold')).rejects.toMatchObject({ status: 404 });
    await tiers.createRateLimit('free', ok);
    await expect(tiers.createRateLimit('free', { ...ok, name: 'again', path: '/api/v1/items' })).rejects.toMatchObject({
      status: 409,
    });
    for (const bad of [
      { limit: -1 },
      { limit: 1.5 },
      { limit: '10' },
      { period: 0 },
      { period: 2 ** 31 },
      { path: '///' },
      { name: '' },
    ]) {
      await expect(tiers.createRateLimit('free', { ...ok, path: 'other', ...bad })).rejects.toMatchObject({
        status: 422,
      });
    }
    const error = await tiers.createRateLimit('free', { name: 'x' }).catch((e) => e);
    expect(error.detail.map((issue: { loc: string[] }) => issue.loc[1])).toEqual(['path', 'limit', 'period']);
    expect(changes).toBe(1);
  });

  it('updates and deletes a limit within its tier, and deletes a tier with its limits', async () => {
    await tiers.createTier({ name: 'free' });
    await tiers.createTier({ name: 'pro' });
    const limit = await tiers.createRateLimit('free', { name: 'items', path: 'api/v1/items', limit: 10, period: 60 });
    expect(await tiers.updateRateLimit('free', limit.id, { limit: 20, path: '/api/v1/posts' })).toMatchObject({
      limit: 20,
      period: 60,
      path: 'api_v1_posts',
    });
    await expect(tiers.updateRateLimit('pro', limit.id, { limit: 5 })).rejects.toMatchObject({ status: 404 });
    await expect(tiers.updateRateLimit('free', limit.id, { limit: -5 })).rejects.toMatchObject({ status: 422 });
    await expect(tiers.deleteRateLimit('pro', limit.id)).rejects.toMatchObject({ status: 404 });
    await tiers.deleteRateLimit('free', limit.id);
    expect(await tiers.listRateLimits('free')).toEqual([]);
    await tiers.createRateLimit('pro', { name: 'items', path: 'api/v1/items', limit: 10, period: 60 });
    await tiers.deleteTier('pro');
    expect(await loadRateLimits(db.knex)).toEqual([]);
    expect((await tiers.listTiers()).map((t) => t.name)).toEqual(['free']);
    expect(changes).toBe(5);
  });
});
