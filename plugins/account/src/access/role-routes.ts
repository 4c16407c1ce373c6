import { NotFoundError, ValidationError, type RouteDescriptor } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { bodyObject } from '../body';
import { currentUserFactory } from '../dependencies';
import { route } from '../route';
import { checkPermissions, checkRoleName } from '../roles';

/** The superuser-only role routes: list and create roles, set a user's roles. */
export function roleRoutes(core: AccountCore): RouteDescriptor[] {
  // A signed-in superuser in person (a session or a bearer token): an API key is refused.
  const superuser = currentUserFactory(core)({ superuser: true });
  const { roles } = core;
  return [
    route(
      { method: 'GET', path: '/roles', operation: 'roles_list', summary: 'List roles', dependencies: [superuser] },
      async () => ({ status: 200, json: await roles.list() }),
    ),
    route(
      {
        method: 'POST',
        path: '/roles',
        operation: 'roles_create',
        summary: 'Create a role with permissions',
        dependencies: [superuser],
      },
      async (req) => {
        const body = bodyObject(req);
        const name = checkRoleName(body.name, ['body', 'name']);
        const permissions = checkPermissions(body.permissions ?? [], ['body', 'permissions']);
        return { status: 201, json: await roles.createRole(name, permissions) };
      },
    ),
    route(
      {
        method: 'PUT',
        path: '/users/:id/roles',
        operation: 'user_roles_set',
        summary: "Set a user's roles",
        dependencies: [superuser],
      },
      async (req) => {
        const user = await core.users.findById(req.params.id);
        if (!user) throw new NotFoundError('User not found');
        const body = bodyObject(req);
        if (!Array.isArray(body.roles) || body.roles.some((r) => typeof r !== 'string'))
          throw ValidationError.of(['body', 'roles'], 'Input should be a list of role names', 'list_type');
        const id = core.users.idOf(user);
        const held = await roles.setRoles(id, body.roles as string[]);
        return { status: 200, json: { id, roles: held } };
      },
    ),
  ];
}
