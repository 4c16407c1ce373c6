import {
  NotFoundError,
  ValidationError,
  mapDatabaseError,
  DuplicateValueError,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { layoutLocals, translate, type AdminContext } from '../context';
import { guarded } from '../guard';
import { html, seeOther } from '../page';
import { render } from '../templates';

/** Shortest admin password, in characters. */
export const ADMIN_PASSWORD_MIN = 8;

/**
 * The admin's own users and their sessions, as pages of the admin: the list of admin
 * users with a form to add one, and each user's live sessions with a button that ends
 * one (the public handle names it, never the session id).
 */
export function managementRoutes(ctx: AdminContext): RouteDescriptor[] {
  const base = `${ctx.mount}/management/admin-users`;
  const { auth } = ctx;

  const usersPage = async (
    req: NeutralRequest,
    principal: AdminPrincipal,
    status: number,
    form: { username?: string; errors?: Record<string, string> } = {},
  ) => {
    const users = await auth.users.list();
    const locked = await auth.lockedOf(users.map((u) => u.username));
    const rows = await Promise.all(
      users.map(async (u) => ({
        ...u,
        locked: locked.has(u.username),
        createdAt: u.createdAt.toISOString(),
        sessions: (await auth.sessions.list(u.id)).length,
      })),
    );
    return html(
      status,
      render('management-users', {
        ...layoutLocals(ctx, req, principal, translate(ctx, req)('users.title')),
        base,
        rows,
        username: form.username ?? '',
        errors: form.errors ?? {},
      }),
    );
  };

  const userOf = async (raw: string) => {
    const id = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    const user = Number.isSafeInteger(id) ? await auth.users.byId(id) : null;
    if (!user) throw new NotFoundError('Admin user not found');
    return user;
  };

  return [
    guarded(
      ctx,
      { method: 'GET', path: `${base}/`, operation: 'admin_management_users', fullAccess: true },
      async (req, principal) => usersPage(req, principal, 200),
    ),
    guarded(
      ctx,
      { method: 'POST', path: `${base}/`, operation: 'admin_management_users_create', fullAccess: true },
      async (req, principal) => {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const username = typeof body.username === 'string' ? body.username : '';
        const password = typeof body.password === 'string' ? body.password : '';
        const t = translate(ctx, req);
        const errors: Record<string, string> = {};
        if (username.trim() === '') errors.username = t('users.enterUsername');
        if ([...password].length < ADMIN_PASSWORD_MIN)
          errors.password = t('users.atLeast', { count: ADMIN_PASSWORD_MIN });
        if ([...password].length > auth.passwords.maxLength)
          errors.password = t('users.atMost', { count: auth.passwords.maxLength });
        if (Object.keys(errors).length > 0) return usersPage(req, principal, 422, { username, errors });
        try {
          const hashed = await auth.passwords.bounded(req.clientAddress, () => auth.passwords.hash(password));
          await auth.users.insert(username, hashed, Date.now());
        } catch (error) {
          if (error instanceof ValidationError)
            return usersPage(req, principal, 422, {
              username,
              errors: { username: String((error.detail as { msg: string }[])[0]?.msg) },
            });
          if (mapDatabaseError(error) instanceof DuplicateValueError)
            return usersPage(req, principal, 409, { username, errors: { username: t('users.taken') } });
          throw error;
        }
        return seeOther(req, `${base}/`);
      },
    ),
    guarded(
      ctx,
      { method: 'POST', path: `${base}/:id/unlock`, operation: 'admin_management_users_unlock', fullAccess: true },
      async (req, principal) => {
        const user = await userOf(req.params.id);
        // The unlock and its event in one transaction: both are kept or neither.
        await ctx.knex.transaction(async (trx) => {
          await auth.unlock(user.username, trx);
          await ctx.events
            .on(trx)
            .record(req, principal, [{ type: 'unlock', model: 'admin_users', recordId: user.id }]);
        });
        return seeOther(req, `${base}/`);
      },
    ),
    guarded(
      ctx,
      { method: 'GET', path: `${base}/:id/sessions`, operation: 'admin_management_sessions', fullAccess: true },
      async (req, principal) => {
        const user = await userOf(req.params.id);
        const sessions = (await auth.sessions.list(user.id)).map((s) => ({
          handle: s.handle,
          current: s.idHash === principal.session.idHash,
          createdAt: s.createdAt.toISOString(),
          lastSeenAt: s.lastSeenAt.toISOString(),
          userAgent: s.userAgent ?? '',
          ipAddress: s.ipAddress ?? '',
        }));
        return html(
          200,
          render('management-sessions', {
            ...layoutLocals(ctx, req, principal, translate(ctx, req)('sessions.title', { username: user.username })),
            base,
            user,
            sessions,
          }),
        );
      },
    ),
    guarded(
      ctx,
      {
        method: 'POST',
        path: `${base}/:id/sessions/:handle/revoke`,
        operation: 'admin_management_sessions_revoke',
        fullAccess: true,
      },
      async (req, principal) => {
        const user = await userOf(req.params.id);
        if (!(await auth.sessions.revokeByHandle(user.id, req.params.handle, { current: principal.session })))
          throw new NotFoundError('Session not found');
        return seeOther(req, `${base}/${user.id}/sessions`);
      },
    ),
  ];
}
