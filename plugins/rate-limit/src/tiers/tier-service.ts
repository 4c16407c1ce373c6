import type { Knex } from 'knex';
import { CrudRepository, DuplicateValueError, NotFoundError } from '@crudsmith/core';
import { RateLimit, Tier } from './models';
import { checkRateLimit, checkTier, type RateLimitInput } from './validate';

/** A stored tier. */
export interface TierRow {
  id: number;
  name: string;
  description: string | null;
  created_at: Date;
}

/** A stored rate limit; `path` is sanitized. */
export interface RateLimitRow extends RateLimitInput {
  id: number;
  tier_id: number;
}

/**
 * Tiers and their rate limits, for the app to expose as routes. Inputs
 * are checked here (422), so a route can pass the request body straight in. Every write
 * calls `onChange`, which drops the limit caches of every process.
 */
export class TierService {
  private readonly tiers = new CrudRepository(Tier);
  private readonly limits = new CrudRepository(RateLimit);

  constructor(
    private readonly knex: Knex,
    private readonly onChange: () => Promise<void>,
  ) {}

  /** Creates a tier; 409 when the name is taken. */
  async createTier(body: unknown): Promise<TierRow> {
    const input = checkTier(body);
    try {
      return (await this.tiers.create(this.knex, { ...input })) as unknown as TierRow;
    } catch (error) {
      if (error instanceof DuplicateValueError)
        throw new DuplicateValueError(`Tier '${input.name}' already exists`, { cause: error });
      throw error;
    }
  }

  /** Every tier, by id. */
  async listTiers(): Promise<TierRow[]> {
    return (await this.tiers.select(this.knex, {}, { sortColumns: 'id' })) as unknown as TierRow[];
  }

  /** The tier of that name; 404 when there is none. */
  async getTier(name: string): Promise<TierRow> {
    const tier = await this.tiers.get(this.knex, { name });
    if (!tier) throw new NotFoundError(`Tier '${name}' not found`);
    return tier as unknown as TierRow;
  }

  /** Removes a tier and its limits; 409 while users still reference it (the app's foreign key). */
  async deleteTier(name: string): Promise<void> {
    const tier = await this.getTier(name);
    await this.knex.transaction(async (trx) => {
      await trx('rate_limits').where({ tier_id: tier.id }).delete();
      await this.tiers.dbDelete(trx, { id: tier.id });
    });
    await this.onChange();
  }

  /** Adds a limit on a path (stored sanitized) to a tier; 404 unknown tier, 409 when the tier already limits that path. */
  async createRateLimit(tierName: string, body: unknown): Promise<RateLimitRow> {
    const input = checkRateLimit(body) as RateLimitInput;
    const tier = await this.getTier(tierName);
    let row: RateLimitRow;
    try {
      row = (await this.limits.create(this.knex, { ...input, tier_id: tier.id })) as unknown as RateLimitRow;
    } catch (error) {
      if (error instanceof DuplicateValueError) {
        throw new DuplicateValueError(`Tier '${tierName}' already has a rate limit on '${input.path}'`, {
          cause: error,
        });
      }
      throw error;
    }
    await this.onChange();
    return row;
  }

  /** A tier's limits, by id; 404 unknown tier. */
  async listRateLimits(tierName: string): Promise<RateLimitRow[]> {
    const tier = await this.getTier(tierName);
    return (await this.limits.select(
      this.knex,
      { tier_id: tier.id },
      { sortColumns: 'id' },
    )) as unknown as RateLimitRow[];
  }

  /** Changes some fields of one of a tier's limits; 404 when either does not exist. */
  async updateRateLimit(tierName: string, id: number, body: unknown): Promise<RateLimitRow> {
    const changes = checkRateLimit(body, true);
    const tier = await this.getTier(tierName);
    await this.notFoundAs(`Rate limit ${id} not found in tier '${tierName}'`, () =>
      this.limits.update(this.knex, { ...changes }, { filters: { id, tier_id: tier.id } }),
    );
    await this.onChange();
    return (await this.limits.get(this.knex, { id })) as unknown as RateLimitRow;
  }

  /** Removes one of a tier's limits; 404 when either does not exist. */
  async deleteRateLimit(tierName: string, id: number): Promise<void> {
    const tier = await this.getTier(tierName);
    await this.notFoundAs(`Rate limit ${id} not found in tier '${tierName}'`, () =>
      this.limits.dbDelete(this.knex, { id, tier_id: tier.id }),
    );
    await this.onChange();
  }

  /** Drops every process's cached limits, after a change made outside this service (the admin interface, SQL). */
  async invalidate(): Promise<void> {
    await this.onChange();
  }

  private async notFoundAs<T>(detail: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(detail, { cause: error });
      throw error;
    }
  }
}

/** Every stored limit, as the cache indexes them. */
export async function loadRateLimits(knex: Knex): Promise<RateLimitRow[]> {
  const rows = await knex('rate_limits').select('id', 'tier_id', 'name', 'path', 'limit', 'period');
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    tier_id: Number(r.tier_id),
    limit: Number(r.limit),
    period: Number(r.period),
  }));
}
