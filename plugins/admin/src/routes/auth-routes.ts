import {
  HttpError,
  type HttpMethod,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import { layoutLocals, translate, type AdminContext } from '../context';
import { errorResult } from '../guard';
import { html } from '../page';
import { render } from '../templates';

/** `GET {mount}`, `GET/POST {mount}/login`, `GET {mount}/logout`. */
export function authRoutes(ctx: AdminContext): RouteDescriptor[] {
  const { mount, auth } = ctx;
  const loginPage = async (
    req: NeutralRequest,
    status: number,
    page: { message?: string; username?: string; headers?: Record<string, string> } = {},
  ) => {
    const prelogin = await auth.prelogin(req);
    const body = render('login', {
      ...layoutLocals(ctx, req, null, translate(ctx, req)('login.title')),
      csrfToken: prelogin.token,
      message: page.message ?? null,
      username: page.username ?? '',
    });
    return html(status, body, {
      authenticated: false,
      headers: page.headers,
      cookies: prelogin.cookie ? [prelogin.cookie] : undefined,
    });
  };
  // A route open to anyone signed in or not; its errors are pages too.
  const open = (
    method: HttpMethod,
    path: string,
    operation: string,
    handler: (req: NeutralRequest) => Promise<NeutralResult>,
  ): RouteDescriptor => ({
    method,
    path,
    operation,
    dependencies: [],
    async handler(req) {
      try {
        return await handler(req);
      } catch (error) {
        return errorResult(ctx, req, null, error);
      }
    },
  });
  return [
    {
      method: 'GET',
      path: mount,
      operation: 'admin_root',
      dependencies: [],
      handler: async () => ({ status: 302, redirect: `${mount}/` }),
    },
    open('GET', `${mount}/login`, 'admin_login_page', async (req) => {
      if (await auth.current(req))
        return { status: 303, redirect: `${mount}/`, headers: { 'Cache-Control': 'no-store' } };
      return loginPage(req, 200);
    }),
    {
      method: 'POST',
      path: `${mount}/login`,
      operation: 'admin_login',
      dependencies: [],
      async handler(req) {
        try {
          if (!(await auth.preloginValid(req))) {
            return loginPage(req, 403, { message: translate(ctx, req)('login.expired') });
          }
          const body = (req.body ?? {}) as Record<string, unknown>;
          const username = typeof body.username === 'string' ? body.username : '';
          const password = typeof body.password === 'string' ? body.password : '';
          const outcome = await auth.signIn(req, username, password);
          if (outcome.ok) {
            await ctx.events.record(req, outcome.principal, [{ type: 'sign_in' }]);
            return {
              status: 303,
              redirect: `${mount}/`,
              headers: { 'Cache-Control': 'no-store' },
              cookies: [outcome.cookie, auth.clearPrelogin()],
            };
          }
          await ctx.events.recordSignInFailed(req, username, 'retryAfter' in outcome);
          if ('retryAfter' in outcome) {
            const error = auth.lockedError(outcome.retryAfter);
            return loginPage(req, 429, { message: error.message, username, headers: error.headers });
          }
          return loginPage(req, 401, {
            message: translate(ctx, req)('login.incorrect'),
            username: username.slice(0, 100),
          });
        } catch (error) {
          if (error instanceof HttpError && error.status === 429)
            return loginPage(req, 429, { message: error.message, headers: error.headers });
          return errorResult(ctx, req, null, error);
        }
      },
    },
    open('GET', `${mount}/logout`, 'admin_logout', async (req) => {
      const principal = await auth.current(req);
      if (principal) {
        await auth.sessions.revoke(principal.session);
        await ctx.events.record(req, principal, [{ type: 'sign_out' }]);
      }
      return {
        status: 303,
        redirect: `${mount}/login`,
        headers: { 'Cache-Control': 'no-store' },
        cookies: [auth.sessions.clearCookie(), auth.clearPrelogin()],
      };
    }),
  ];
}
