import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  type Dependency,
  type RouteDescriptor,
} from '@crudsmith/core';
import { randomToken } from '@crudsmith/core/auth';
import type { AccountCore, Credential } from '../account-core';
import { stringFields } from '../body';
import type { FinishSignIn } from '../sign-in';
import { crossSiteCheck } from '../origin-check';
import { route } from '../route';

/**
 * The session credential for session routes: 401 without a live session, 403 when an
 * unsafe verb lacks the matching CSRF header.
 */
function sessionOnly(core: AccountCore, options: { csrf: boolean }): Dependency<Credential> {
  return async (req) => {
    const credential = await req.resolve(core.requireSession().credential);
    if (!credential) throw new UnauthorizedError('Not authenticated');
    if (options.csrf && !credential.csrfOk) throw new ForbiddenError('CSRF token missing or invalid');
    return credential;
  };
}

/** `/login` and `/logout` of the session transport, plus the management routes when enabled. */
export function sessionRoutes(
  core: AccountCore,
  finishSignIn: FinishSignIn,
  trustedOrigins: string[],
): RouteDescriptor[] {
  const transport = core.requireSession();
  const sessions = transport.manager;
  const session = sessionOnly(core, { csrf: true });
  const sessionNoCsrf = sessionOnly(core, { csrf: false });
  const crossSite = crossSiteCheck(trustedOrigins, core.secure);

  const routes = [
    route(
      {
        method: 'POST',
        path: '/login',
        operation: 'login',
        summary: 'Sign in (form fields username and password); sets the session cookie',
      },
      async (req) => {
        // Login CSRF: a cross-site page must not sign the browser into the attacker's account.
        if (crossSite(req)) throw new ForbiddenError('Cross-site sign-in refused');
        const { username, password } = stringFields(req, ['username', 'password']);
        const row = await core.signIn(username, password, { client: req.clientAddress });
        // With two-factor: the challenge object, and no cookie until /mfa/verify.
        return finishSignIn(req, row, { transport: 'session' });
      },
    ),

    route(
      {
        method: 'POST',
        path: '/logout',
        operation: 'logout',
        summary: 'End the current session',
        dependencies: [session],
      },
      async (req) => {
        const credential = await req.resolve(session);
        await sessions.revoke(credential.session!);
        await core.bearer?.revokeRefreshCookie(req.cookies);
        return { status: 200, cookies: transport.signOutCookies(), json: { message: 'Signed out' } };
      },
    ),
  ];
  if (!transport.managementRoutes) return routes;

  return [
    ...routes,
    route(
      {
        method: 'GET',
        path: '/sessions',
        operation: 'sessions',
        summary: "The user's sessions",
        dependencies: [session],
      },
      async (req) => {
        const credential = await req.resolve(session);
        const list = await sessions.list(credential.session!.userId);
        const json = list.map((s) => ({
          id: s.handle,
          current: s.handle === credential.session!.handle,
          created_at: s.createdAt.toISOString(),
          last_seen_at: s.lastSeenAt.toISOString(),
          expires_at: new Date(Math.min(s.idleExpiresAt.getTime(), s.absoluteExpiresAt.getTime())).toISOString(),
          user_agent: s.userAgent,
          ip_address: s.ipAddress,
        }));
        return { status: 200, json };
      },
    ),

    route(
      {
        method: 'DELETE',
        path: '/sessions/:id',
        operation: 'session_revoke',
        summary: 'Revoke one session',
        dependencies: [session],
      },
      async (req) => {
        const credential = await req.resolve(session);
        const current = credential.session!;
        // Found only among the caller's own sessions: another user's handle is a 404 as well.
        if (!(await sessions.revokeByHandle(current.userId, req.params.id, { current })))
          throw new NotFoundError('Session not found');
        const cookies = req.params.id === current.handle ? transport.signOutCookies() : [];
        return { status: 200, cookies, json: { message: 'Session revoked' } };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/logout-all',
        operation: 'logout_all',
        summary: 'Revoke every session (keep_current=true keeps this one)',
        dependencies: [session],
      },
      async (req) => {
        const credential = await req.resolve(session);
        const keep = req.query.keep_current === 'true' ? credential.session : null;
        const userId = core.users.idOf(credential.row);
        const revoked = await sessions.revokeAll(userId, { keep, current: credential.session });
        // Signed out everywhere means bearer credentials too: refresh tokens and (token_version) access tokens.
        await core.revokeRefreshTokensOf(userId);
        await core.users.bumpTokenVersion(userId);
        return { status: 200, cookies: keep ? [] : transport.signOutCookies(), json: { revoked } };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/csrf/refresh',
        operation: 'csrf_refresh',
        summary: 'Re-mint the CSRF token',
        dependencies: [sessionNoCsrf],
      },
      async (req) => {
        if (!transport.csrf) throw new BadRequestError('CSRF protection is disabled');
        const credential = await req.resolve(sessionNoCsrf);
        const current = credential.session!;
        const token = randomToken(32);
        current.data.csrf = token;
        // Revoked meanwhile: nothing is written, and the caller is not signed in.
        if (!(await sessions.save(current))) throw new UnauthorizedError('Not authenticated');
        return { status: 200, cookies: [transport.csrfCookieFor(token, current)], json: { csrf_token: token } };
      },
    ),
  ];
}
