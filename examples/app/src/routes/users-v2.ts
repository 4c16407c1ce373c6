import type { Knex } from 'knex';
import { validateBody, type Dependency, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { toUserReadV2, UserCreateV2, type UserReadV2 } from '../models/user';
import type { AvatarStore } from '../avatars';
import { userAccess, userAvatarRoute, userDeleteRoutes, userRouteMaker } from './user-access';

type Row = Record<string, unknown>;

/**
 * The v2 users routes: the same paths, methods, rules and data access as v1, with v2's
 * shapes. The list answers the paginated envelope, create needs a signed-in user and
 * `accept_terms: true` and shares v1's per-address limit (`registerLimit`), and reads
 * answer UserReadV2. Paths are relative to the version prefix (`/api/v2`).
 */
export function userRoutesV2(
  knex: Knex,
  auth: AccountPlugin,
  avatars: AvatarStore,
  registerLimit: Dependency<void>,
): RouteDescriptor[] {
  const users = userAccess(knex, auth, avatars);
  const route = userRouteMaker({ path: '/users', operationPrefix: 'users_v2' });
  const read = async (rows: Row[]): Promise<UserReadV2[]> => {
    const names = await tierNames(knex, rows);
    return rows.map((row) => toUserReadV2(row, row.tier_id == null ? null : (names.get(Number(row.tier_id)) ?? null)));
  };
  const readOne = async (row: Row): Promise<UserReadV2> => (await read([row]))[0];

  return [
    // Counted against the address after the sign-in check, in v1's budget: each account made
    // here can sign in and create more, so a limit per caller would multiply.
    route('POST / create', [users.signedIn, registerLimit], async (req) => {
      // accept_terms is checked (true) by the schema; it is not a column.
      const { accept_terms: _accepted, ...fields } = await validateBody(UserCreateV2, req.body);
      const user = await users.create(fields, req.clientAddress);
      return { status: 201, json: await readOne(await users.get(user.id)) };
    }),

    route('GET / list', [], async (req) => {
      const { rows, total = 0, page, perPage } = await users.list(req, { count: true });
      return {
        status: 200,
        json: {
          data: await read(rows),
          total_count: total,
          has_more: page * perPage < total,
          page,
          items_per_page: perPage,
        },
      };
    }),

    route('GET /me me', [users.signedIn], async (req) => ({
      status: 200,
      json: await readOne(await users.get((await req.resolve(users.signedIn))!.id)),
    })),

    route('GET /:user_id read', [], async (req) => ({ status: 200, json: await readOne(await users.find(req)) })),

    route('PATCH /:user_id update', [users.signedIn], async (req) => ({
      status: 200,
      json: await readOne(await users.update(req)),
    })),

    ...userDeleteRoutes(route, users),

    userAvatarRoute(route, { users, avatars, answer: readOne }),
  ];
}

/** The names of the rows' tiers, by tier id, in one query. */
async function tierNames(knex: Knex, rows: Row[]): Promise<Map<number, string>> {
  const ids = [
    ...new Set(
      rows
        .map((row) => row.tier_id)
        .filter((id) => id != null)
        .map(Number),
    ),
  ];
  if (ids.length === 0) return new Map();
  const tiers: { id: number; name: string }[] = await knex('tiers').whereIn('id', ids).select('id', 'name');
  return new Map(tiers.map((tier) => [Number(tier.id), tier.name]));
}
