import type { CrudRouter, RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { versioning, type VersioningPlugin } from '@crudsmith/versioning';
import { LIMITED_PATHS } from './rate-limit';

/** When /api/v1 goes away unless API_V1_SUNSET says otherwise (examples/app/README.md, settings). */
export const DEFAULT_V1_SUNSET = '2027-06-30';

/** The routers of each version, paths relative to the version (`/items`). */
export interface ExampleVersionRouters {
  v1: (CrudRouter | RouteDescriptor[])[];
  v2: (CrudRouter | RouteDescriptor[])[];
}

/**
 * The example's API versions: /api/v1 as it always was,
 * deprecated with a sunset date; /api/v2 current. Both publish an OpenAPI document and a
 * docs page; routes that need a login say so in the documents (a session cookie with its
 * CSRF header for unsafe methods, or a bearer token), limited routes document 429, and
 * both list the unversioned /auth routes.
 */
export function exampleVersions(
  routers: ExampleVersionRouters,
  options: { auth: AccountPlugin; sunset?: string },
): VersioningPlugin {
  const { auth } = options;
  return versioning({
    prefix: '/api',
    versions: [
      {
        label: 'v1',
        routers: routers.v1,
        deprecated: {
          message: 'API v1 is deprecated; use /api/v2 (see /api/v2/docs)',
          sunset: options.sunset ?? DEFAULT_V1_SUNSET,
        },
      },
      { label: 'v2', routers: routers.v2 },
    ],
    docs: {
      title: 'crudsmith example API',
      security: {
        // The account plugin's own schemes (its /auth routes document them), so both name one cookie, header and token.
        schemes: Object.assign({}, ...auth.router.map((route) => route.doc?.securitySchemes ?? {})),
        requirement: (route): Record<string, string[]>[] => [
          { accountSession: [], ...(route.method === 'GET' ? {} : { accountCsrf: [] }) },
          { accountBearer: [] },
        ],
        dependencies: [auth.currentUser(), auth.currentUser({ superuser: true })],
      },
      errorResponses: (route) =>
        LIMITED_PATHS.some((path) => route.path === path || route.path.startsWith(`${path}/`)) ? [429] : [],
      // /auth is unversioned: every version's document lists its routes, so a client of either version (and the fuzz) finds them.
      unversioned: auth.router,
    },
  });
}
