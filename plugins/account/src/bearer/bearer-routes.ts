import { ForbiddenError, UnauthorizedError, ValidationError, type RouteDescriptor } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import type { BearerTransport } from './bearer-transport';
import { bodyObject, stringFields } from '../body';
import { clearCookie } from '../cookies';
import type { FinishSignIn } from '../sign-in';
import { crossSiteCheck } from '../origin-check';
import { route } from '../route';

/** `/token` and `/refresh` of the bearer transport, and `/logout` for a bearer-only app in cookie mode. */
export function bearerRoutes(
  core: AccountCore<BearerTransport>,
  finishSignIn: FinishSignIn,
  options: { logout: boolean },
): RouteDescriptor[] {
  const bearer = core.requireBearer();
  const refreshFailed = (detail: string) => new UnauthorizedError(detail);

  // In refresh mode `cookie`, /token sets a cookie that signs the browser in: the same
  // login-CSRF check as /login applies.
  const crossSite =
    bearer.refresh === 'cookie' ? crossSiteCheck(core.options.trustedOrigins ?? [], core.secure) : () => false;

  const routes = [
    route(
      {
        method: 'POST',
        path: '/token',
        operation: 'token',
        summary: 'Sign in (form fields username and password) for a bearer token',
      },
      async (req) => {
        if (crossSite(req)) throw new ForbiddenError('Cross-site sign-in refused');
        const { username, password, scope } = stringFields(req, ['username', 'password', 'scope'], ['scope']);
        const row = await core.signIn(username, password, { client: req.clientAddress });
        // A token carries what was asked of what the user holds (all of it when nothing was asked).
        const held = core.scopesOf(row);
        const asked = scope?.split(' ').filter(Boolean);
        const granted = asked ? held.filter((s) => asked.includes(s)) : held;
        // With two-factor: the challenge object, and no token until /mfa/verify.
        return finishSignIn(req, row, { transport: 'bearer', scope: granted.join(' ') });
      },
    ),
  ];

  if (bearer.refresh !== 'none') {
    routes.push(
      route(
        {
          method: 'POST',
          path: '/refresh',
          operation: 'refresh',
          summary: 'Trade a refresh token for a new access token (and a new refresh token)',
        },
        async (req) => {
          const body = bodyObject(req);
          const given = body.refresh_token ?? req.cookies[bearer.refreshCookie];
          if (given === undefined) throw new UnauthorizedError('Refresh token missing');
          if (typeof given !== 'string')
            throw ValidationError.of(['body', 'refresh_token'], 'Input should be a valid string', 'string_type');
          const now = core.now();
          const rotated = await bearer.refreshTokens.rotate(given, now);
          if (!rotated.ok)
            throw refreshFailed(
              rotated.reused ? 'Refresh token reused; its whole family is revoked' : 'Invalid or expired refresh token',
            );
          const row = await core.users.findById(rotated.record.userId);
          if (!row || core.users.tokenVersionOf(row) !== rotated.record.tokenVersion) {
            await bearer.refreshTokens.revokeFamily(rotated.record.familyId, now);
            throw refreshFailed('Invalid or expired refresh token');
          }
          const access = await bearer.accessToken(row, {
            scope: rotated.record.scope,
            authTime: rotated.record.authTime,
          });
          const { json, cookies } = bearer.tokenAnswer(access, rotated.token);
          return { status: 200, cookies, headers: { 'Cache-Control': 'no-store' }, json };
        },
      ),
    );
  }

  if (options.logout && bearer.refresh === 'cookie') {
    routes.push(
      route(
        {
          method: 'POST',
          path: '/logout',
          operation: 'bearer_logout',
          summary: 'Revoke the refresh cookie and clear it',
        },
        async (req) => {
          await bearer.revokeRefreshCookie(req.cookies);
          return {
            status: 200,
            cookies: [clearCookie(bearer.refreshCookie, { secure: core.secure, httpOnly: true })],
            json: { message: 'Signed out' },
          };
        },
      ),
    );
  }
  return routes;
}
