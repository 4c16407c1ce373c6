import {
  ForbiddenError,
  mapDatabaseError,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
  type HttpMethod,
} from '@crudsmith/core';
import type { AdminPrincipal } from './admin-auth';
import { setAdminUser } from './admin-user-of';
import { layoutLocals, translate, type AdminContext } from './context';
import { messageKeyOf } from './i18n/message-error';
import { html, isHtmx, wantsJson } from './page';
import { render } from './templates';
import { restricted, roleRefusal } from './view-access';

type Handler = (req: NeutralRequest, principal: AdminPrincipal) => Promise<NeutralResult>;

const UNSAFE = new Set<HttpMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A route that needs a signed-in admin: a page request without one is sent to the login
 * page (303), an htmx request gets 401 with `HX-Redirect`, a JSON one 401 JSON. An unsafe
 * request without the session's CSRF token is a 403 and runs nothing. The admin user's
 * roles are read first (`principal.acting`); a `fullAccess` route refuses one holding
 * roles with a 403.
 */
export function guarded(
  ctx: AdminContext,
  route: { method: HttpMethod; path: string; operation: string; bodyLimit?: number; fullAccess?: boolean },
  handler: Handler,
): RouteDescriptor {
  const { fullAccess, ...described } = route;
  const { method } = route;
  return {
    ...described,
    dependencies: [],
    async handler(req) {
      try {
        const principal = await ctx.auth.current(req);
        if (!principal) return unauthenticated(ctx, req);
        setAdminUser(req, principal.user);
        principal.acting = await ctx.roles.principalOf(principal.user);
        if (UNSAFE.has(method) && !ctx.auth.csrfValid(req, principal)) {
          return errorResult(
            ctx,
            req,
            principal,
            new ForbiddenError('The form has expired or did not come from this site; reload the page and try again'),
          );
        }
        // Admin users, roles, keys and the event log are for admin users with full access only.
        if (fullAccess && restricted(principal)) return errorResult(ctx, req, principal, roleRefusal());
        return await handler(req, principal);
      } catch (error) {
        return errorResult(ctx, req, null, error);
      }
    },
  };
}

/** The answer to a request without a live admin session. */
export function unauthenticated(ctx: AdminContext, req: NeutralRequest): NeutralResult {
  const login = `${ctx.mount}/login`;
  if (isHtmx(req)) return { status: 401, headers: { 'HX-Redirect': login, 'Cache-Control': 'no-store' }, body: '' };
  if (wantsJson(req))
    return { status: 401, headers: { 'Cache-Control': 'no-store' }, json: { detail: 'Not authenticated' } };
  return { status: 303, redirect: login, headers: { 'Cache-Control': 'no-store' } };
}

/**
 * An error as a page (or JSON for JSON clients): an HttpError keeps its status and its
 * message; a database error is mapped to its HTTP meaning; anything else is a 500 whose
 * page says nothing of the cause.
 */
export function errorResult(
  ctx: AdminContext,
  req: NeutralRequest,
  principal: AdminPrincipal | null,
  error: unknown,
): NeutralResult {
  const mapped = mapDatabaseError(error);
  const status = mapped?.status ?? 500;
  // A 503 is a refusal the server chose (busy hashing, a database outage the app logs once
  // a period), not a fault: only an unexpected error is logged, with its stack.
  if (status >= 500 && status !== 503) ctx.logger.error(`admin ${req.method} ${req.path} failed`, error);
  const key = messageKeyOf(error);
  const message =
    mapped && typeof mapped.detail === 'string' && status !== 500
      ? key
        ? translate(ctx, req)(key)
        : mapped.detail
      : translate(ctx, req)('error.unexpected');
  const headers = { ...(mapped?.headers ?? {}) };
  if (wantsJson(req))
    return {
      status,
      headers: { ...headers, 'Cache-Control': 'no-store' },
      json: { detail: mapped?.detail && status !== 500 ? mapped.detail : message },
    };
  return html(
    status,
    render('error', {
      ...layoutLocals(ctx, req, principal, translate(ctx, req)('error.title', { status })),
      status,
      message,
    }),
    {
      headers,
    },
  );
}
