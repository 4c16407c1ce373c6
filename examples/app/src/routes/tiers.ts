import type { Knex } from 'knex';
import {
  NotFoundError,
  ValidationError,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import type { RateLimitRow, TierRow, TierService } from '@crudsmith/rate-limit';
import { toUserRead } from '../models/user';
import { userAt, userRepository } from './user-access';

type Route = `${RouteDescriptor['method']} ${string} ${string}`;

/**
 * Tiers, their per-path rate limits and a user's tier. Every write needs a superuser,
 * since a tier decides how much of the API a user may use; the reads beside them are
 * public, like the other example reads. Inputs are checked by the TierService (422), a taken
 * name or path is 409, an unknown tier or user 404. Every write drops the limit caches of
 * every process, so a new limit applies from the next request.
 */
export function tierRoutes(knex: Knex, tiers: TierService, auth: AccountPlugin): RouteDescriptor[] {
  const superuser = auth.currentUser({ superuser: true });
  const route = (
    spec: Route,
    dependencies: RouteDescriptor['dependencies'],
    handler: (req: NeutralRequest) => Promise<NeutralResult>,
  ): RouteDescriptor => {
    const [method, path, operation] = spec.split(' ') as [RouteDescriptor['method'], string, string];
    const tag = path.startsWith('/users') ? 'users' : 'tiers';
    return { method, path, operation, dependencies, handler, doc: { operationId: operation, tags: [tag] } };
  };

  return [
    route('POST /tiers tiers_create', [superuser], async (req) => ({
      status: 201,
      json: toTierRead(await tiers.createTier(req.body)),
    })),

    route('GET /tiers tiers_list', [], async () => ({ status: 200, json: (await tiers.listTiers()).map(toTierRead) })),

    // One parameter name at this position for every route: some routers refuse two.
    route('GET /tier/:tier_name tiers_read', [], async (req) => ({
      status: 200,
      json: toTierRead(await tiers.getTier(req.params.tier_name)),
    })),

    route('POST /tier/:tier_name/rate_limit rate_limits_create', [superuser], async (req) => ({
      status: 201,
      json: toRateLimitRead(await tiers.createRateLimit(req.params.tier_name, req.body)),
    })),

    route('GET /tier/:tier_name/rate_limits rate_limits_list', [], async (req) => ({
      status: 200,
      json: (await tiers.listRateLimits(req.params.tier_name)).map(toRateLimitRead),
    })),

    route('PUT /users/:user_id/tier users_update_tier', [superuser], async (req) => {
      const tierId = tierIdOf(req.body);
      const user = await userAt(knex, req.params.user_id);
      if (tierId !== null && !(await knex('tiers').where('id', tierId).first('id')))
        throw new NotFoundError('Tier not found');
      await userRepository.update(knex, { tier_id: tierId }, { filters: { id: user.id } });
      // The account plugin loads the user on every request: the new tier counts from the next one.
      return { status: 200, json: toUserRead(await userAt(knex, req.params.user_id)) };
    }),
  ];
}

/** A tier as the routes answer it. */
export function toTierRead(row: TierRow): { id: number; name: string; description: string | null; created_at: string } {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description ?? null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** A rate limit as the routes answer it (`path` as stored: sanitized). */
export function toRateLimitRead(row: RateLimitRow): RateLimitRow {
  return {
    id: Number(row.id),
    tier_id: Number(row.tier_id),
    name: row.name,
    path: row.path,
    limit: Number(row.limit),
    period: Number(row.period),
  };
}

// `{"tier_id": 3}` (a JSON integer id) or `{"tier_id": null}` to take the tier away.
function tierIdOf(body: unknown): number | null {
  const value =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).tier_id
      : undefined;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2147483647) {
    throw ValidationError.of(['body', 'tier_id'], 'tier_id must be a tier id (a positive integer) or null', 'int_type');
  }
  return value;
}
