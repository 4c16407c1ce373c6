import { IsArray, IsString } from 'class-validator';
import { validateBody, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { toUserRead } from '../models/user';
import type { UserAccess, UserRouteMaker } from './user-access';

/** `PUT /api/v1/users/{user_id}/roles` body: exactly the roles the user holds afterwards. */
export class UserRolesSet {
  @IsArray() @IsString({ each: true }) roles!: string[];
}

/**
 * `GET /me` with the caller's roles, and `PUT /:user_id/roles` (superuser only), which sets
 * a user's roles: 404 no such user, 422 an unknown role (the account plugin's checks).
 */
export function userRoleRoutes(route: UserRouteMaker, users: UserAccess, auth: AccountPlugin): RouteDescriptor[] {
  return [
    route('GET /me me', [users.signedIn], async (req) => {
      const me = (await req.resolve(users.signedIn))!;
      return { status: 200, json: { ...toUserRead(me), roles: (await auth.roles.rolesOf(me.id)).roles } };
    }),
    route('PUT /:user_id/roles roles', [users.superuser], async (req) => {
      // The user first: an id that names no live user is a 404 even with no role to set.
      const user = await users.find(req);
      const roles = (await validateBody(UserRolesSet, req.body)).roles as string[];
      await auth.roles.setRoles(user.id as number, roles);
      return { status: 200, json: { id: user.id, roles: (await auth.roles.rolesOf(user.id as number)).roles } };
    }),
  ];
}
