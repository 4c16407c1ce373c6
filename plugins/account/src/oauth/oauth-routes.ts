import {
  BadRequestError,
  RateLimitError,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import { hashSecret, safeEqual } from '@crudsmith/core/auth';
import * as oidc from 'openid-client';
import type { AccountCore } from '../account-core';
import { clearCookie, cookie } from '../cookies';
import { signInRedirect, type FinishSignIn } from '../sign-in';
import { accountFor } from './oauth-accounts';
import { OAuthFlowError } from './oauth-options';
import type { OAuthStore } from './oauth-store';
import type { OidcProvider } from './oidc-provider';
import { safeRedirect } from '../redirect-target';
import { route } from '../route';

/** How the OAuth routes are set up: providers by name, the answer mode, the paths, the flow's lifetime. */
export interface OAuthRouteSettings {
  providers: Map<string, OidcProvider>;
  responseMode: 'redirect' | 'json';
  paths: { authorize: string; callback: string };
  flowSeconds: number;
  /** Most sign-ins one client address may start in a window. */
  rateLimit: { limit: number; periodSeconds: number };
  /** Where a provider failure is reported (never a token or a code). */
  warn(message: string, details: Record<string, unknown>): void;
}

/**
 * `GET /oauth/:provider/authorize` and `/callback`. The flow lives in the database (any
 * process finds it) and is bound to the browser that started it by an HttpOnly cookie
 * holding its state: a callback URL sent to someone else signs nobody in.
 */
export function oauthRoutes(
  core: AccountCore,
  finishSignIn: FinishSignIn,
  store: OAuthStore,
  settings: OAuthRouteSettings,
): RouteDescriptor[] {
  const flowCookie = `${core.secure ? '__Host-' : ''}cs_oauth`;
  const json = settings.responseMode === 'json';
  const providerOf = (req: NeutralRequest): OidcProvider => {
    const provider = settings.providers.get(req.params.provider ?? '');
    if (!provider) throw new BadRequestError('Unknown OAuth provider');
    return provider;
  };
  const queryText = (req: NeutralRequest, name: string): string | undefined => {
    const value = req.query[name];
    return typeof value === 'string' ? value : undefined;
  };
  const failed = (error: OAuthFlowError): NeutralResult => {
    const cookies = [clearCookie(flowCookie, { secure: core.secure, httpOnly: true })];
    if (json) return { status: 400, cookies, json: { detail: error.code } };
    // Built from the value checked again, never from what a flow or an error carried unchecked.
    const target = new URL(safeRedirect(error.redirectTo) ?? '/', 'http://same-origin.invalid');
    target.searchParams.set('error', error.code);
    return { status: 307, cookies, redirect: `${target.pathname}${target.search}${target.hash}` };
  };

  return [
    route(
      {
        method: 'GET',
        path: settings.paths.authorize,
        operation: 'oauth_authorize',
        summary: 'Start an OpenID Connect sign-in: 307 to the provider',
      },
      async (req) => {
        const provider = providerOf(req);
        // Each start stores a flow row until it expires: bounded per client address, shared by every process.
        const key = `oauth:${hashSecret(req.clientAddress).slice(0, 32)}`;
        const { count, retryAfter } = await core.lockout.hit(key, settings.rateLimit.periodSeconds * 1000, core.now());
        if (count > settings.rateLimit.limit)
          throw new RateLimitError('Too many sign-ins started from this address; try again later', { retryAfter });
        const redirectTo = safeRedirect(queryText(req, 'redirect_to')) ?? '/';
        const flow = {
          provider: provider.name,
          state: oidc.randomState(),
          nonce: oidc.randomNonce(),
          codeVerifier: oidc.randomPKCECodeVerifier(),
          redirectTo,
        };
        let url: string;
        try {
          url = await provider.authorizationUrl(flow);
        } catch (error) {
          settings.warn('account: OpenID Connect discovery failed', { provider: provider.name, ...failure(error) });
          return failed(new OAuthFlowError('provider_error', redirectTo));
        }
        await store.startFlow(flow, core.now());
        const cookies = [
          cookie(flowCookie, flow.state, { secure: core.secure, httpOnly: true, maxAge: settings.flowSeconds }),
        ];
        if (json)
          return { status: 200, cookies, headers: { 'Cache-Control': 'no-store' }, json: { authorization_url: url } };
        return { status: 307, cookies, headers: { 'Cache-Control': 'no-store' }, redirect: url };
      },
    ),

    route(
      {
        method: 'GET',
        path: settings.paths.callback,
        operation: 'oauth_callback',
        summary: 'Finish an OpenID Connect sign-in: links or creates the user, starts a session',
      },
      async (req) => {
        const provider = providerOf(req);
        const state = queryText(req, 'state') ?? '';
        const bound = req.cookies[flowCookie];
        try {
          // The browser that started the flow, and a flow not used before: else nothing happens.
          if (!bound || !state || !safeEqual(bound, state)) throw new OAuthFlowError('invalid_state');
          const flow = await store.takeFlow(provider.name, state, core.now());
          if (!flow) throw new OAuthFlowError('invalid_state');
          if (req.query.error !== undefined) throw new OAuthFlowError('access_denied', flow.redirectTo);
          const query = new URLSearchParams();
          for (const [key, value] of Object.entries(req.query)) for (const v of [value].flat()) query.append(key, v);
          const identity = await provider.identity(query, flow).catch((error: unknown) => {
            settings.warn('account: OpenID Connect code exchange failed', {
              provider: provider.name,
              ...failure(error),
            });
            throw new OAuthFlowError('provider_error', flow.redirectTo);
          });
          const row = await accountFor(core, store, { provider: provider.name, identity, redirectTo: flow.redirectTo });
          // For an account with two-factor: the challenge instead of a session (in redirect mode,
          // in the fragment of redirect_to), finished at /mfa/verify.
          const signedIn = await finishSignIn(req, row, { transport: 'session', redirectTo: flow.redirectTo });
          const cookies = [
            ...(signedIn.cookies ?? []),
            clearCookie(flowCookie, { secure: core.secure, httpOnly: true }),
          ];
          if (json) return { ...signedIn, cookies };
          return {
            status: 307,
            cookies,
            headers: { 'Cache-Control': 'no-store' },
            redirect: signInRedirect(flow.redirectTo, signedIn),
          };
        } catch (error) {
          if (error instanceof OAuthFlowError) return failed(error);
          throw error;
        }
      },
    ),
  ];
}

/** What a provider failure may say in a log: its kind, code and reason (openid-client's messages carry no token or code). */
function failure(error: unknown): Record<string, unknown> {
  const { name, code, message, cause } = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: { message?: unknown };
  };
  return { error: name, code, reason: String(cause?.message ?? message ?? '').slice(0, 300) };
}
