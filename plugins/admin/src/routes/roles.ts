import { NotFoundError, ValidationError, type NeutralRequest, type RouteDescriptor } from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { inTransaction, takesTransaction } from '../app-transaction';
import { layoutLocals, translate, type AdminContext } from '../context';
import { guarded } from '../guard';
import { messageError } from '../i18n/message-error';
import { html, seeOther } from '../page';
import { render } from '../templates';

// An app user's id as typed in the form: letters, digits, `-` and `_` (integer and UUID keys).
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

// The role names a form posted (`roles`, one value or several).
function postedRoles(req: NeutralRequest): string[] {
  const raw = (req.body as Record<string, unknown> | undefined)?.roles;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (!list.every((r): r is string => typeof r === 'string'))
    throw ValidationError.of(['body', 'roles'], 'Role names', 'list_type');
  return list;
}

/**
 * `{mount}/management/roles/` (admin users with full access, the `access` option): the
 * roles and their permissions, which roles each admin user holds, and, when the role
 * store assigns them (`setRoles`), an app user's roles by id. Every change is a
 * `role_change` event with the roles before and after.
 */
export function roleRoutes(ctx: AdminContext): RouteDescriptor[] {
  if (!ctx.roles.enabled) return [];
  const base = `${ctx.mount}/management/roles`;
  const { roles, auth } = ctx;
  const store = roles.store;

  const page = async (
    req: NeutralRequest,
    principal: AdminPrincipal,
    status: number,
    appUser?: { id: string; roles: string[] },
  ) => {
    const catalogue = await roles.catalogue();
    const held = await roles.all();
    const admins = (await auth.users.list()).map((u) => ({ ...u, roles: held.get(u.id) ?? [] }));
    return html(
      status,
      render('management-roles', {
        ...layoutLocals(ctx, req, principal, translate(ctx, req)('roles.title')),
        base,
        roles: catalogue,
        admins,
        assignsAppUsers: Boolean(store.setRoles && store.rolesOf),
        appUser: appUser ?? null,
      }),
    );
  };

  const appUserId = (raw: unknown) => {
    if (typeof raw !== 'string' || !USER_ID.test(raw))
      throw ValidationError.of(['query', 'user'], 'A user id: letters, digits, - or _', 'string_pattern_mismatch');
    return raw;
  };

  return [
    guarded(
      ctx,
      { method: 'GET', path: `${base}/`, operation: 'admin_management_roles', fullAccess: true },
      async (req, principal) => {
        const raw = req.query.user;
        if (raw === undefined || raw === '' || !store.rolesOf) return page(req, principal, 200);
        const id = appUserId(Array.isArray(raw) ? raw[raw.length - 1] : raw);
        return page(req, principal, 200, { id, roles: [...(await store.rolesOf(id)).roles] });
      },
    ),
    guarded(
      ctx,
      {
        method: 'POST',
        path: `${base}/admin-users/:id`,
        operation: 'admin_management_roles_admin_user',
        fullAccess: true,
      },
      async (req, principal) => {
        const id = /^\d{1,9}$/.test(req.params.id) ? Number(req.params.id) : NaN;
        const user = Number.isSafeInteger(id) ? await auth.users.byId(id) : null;
        if (!user) throw messageError((english) => new NotFoundError(english), 'error.adminUserNotFound');
        const before = await roles.of(user.id);
        const after = await roles.checked(postedRoles(req));
        // The change and its event in one transaction: both are kept or neither.
        await ctx.knex.transaction(async (trx) => {
          await roles.write(user.id, after, trx);
          await ctx.events
            .on(trx)
            .record(req, principal, [
              { type: 'role_change', model: 'admin_users', recordId: user.id, details: { roles: { before, after } } },
            ]);
        });
        return seeOther(req, `${base}/`);
      },
    ),
    guarded(
      ctx,
      { method: 'POST', path: `${base}/users/:id`, operation: 'admin_management_roles_user', fullAccess: true },
      async (req, principal) => {
        if (!store.setRoles || !store.rolesOf)
          throw messageError((english) => new NotFoundError(english), 'error.notFound');
        const id = appUserId(req.params.id);
        const before = [...(await store.rolesOf(id)).roles].sort();
        const posted = postedRoles(req);
        const setRoles = store.setRoles;
        // The change and its event in one transaction: both are kept or neither.
        await inTransaction(ctx, takesTransaction(setRoles, 2), async (trx, events) => {
          const after = await setRoles.call(store, id, posted, trx);
          await events.record(req, principal, [
            { type: 'role_change', model: 'users', recordId: id, details: { roles: { before, after } } },
          ]);
        });
        return seeOther(req, `${base}/?${new URLSearchParams({ user: id })}`);
      },
    ),
  ];
}
