import type { Knex } from 'knex';
import { validateBody, type Dependency, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { toUserRead, UserCreate } from '../models/user';
import type { AvatarStore } from '../avatars';
import { userRoleRoutes } from './user-roles';
import { userAccess, userAvatarRoute, userDeleteRoutes, userRouteMaker } from './user-access';

/**
 * The v1 users routes over the account plugin's user model: PATCH and DELETE need that
 * user or a superuser (401/403), a duplicate username or e-mail is 409, and answers are
 * UserRead (no secret ever). The list is a bare array of one page. Creating a user is
 * open to anonymous callers, so `registerLimit` bounds it per client address as
 * `/auth/register` is bounded.
 */
export function userRoutes(
  knex: Knex,
  auth: AccountPlugin,
  avatars: AvatarStore,
  registerLimit: Dependency<void>,
): RouteDescriptor[] {
  const users = userAccess(knex, auth, avatars);
  const route = userRouteMaker({ path: '/users', operationPrefix: 'users' });

  return [
    route('POST / create', [registerLimit], async (req) => {
      const user = await users.create(await validateBody(UserCreate, req.body), req.clientAddress);
      return { status: 201, json: toUserRead(user) };
    }),

    route('GET / list', [], async (req) => ({
      status: 200,
      json: (await users.list(req, { count: false })).rows.map(toUserRead),
    })),

    ...userRoleRoutes(route, users, auth),

    route('GET /:user_id read', [], async (req) => ({ status: 200, json: toUserRead(await users.find(req)) })),

    route('PATCH /:user_id update', [users.signedIn], async (req) => ({
      status: 200,
      json: toUserRead(await users.update(req)),
    })),

    ...userDeleteRoutes(route, users),

    userAvatarRoute(route, { users, avatars, answer: toUserRead }),
  ];
}
