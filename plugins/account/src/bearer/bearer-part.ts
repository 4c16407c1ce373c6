import type { AccountCore } from '../account-core';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import type { FinishSignIn } from '../sign-in';
import { bearerRoutes } from './bearer-routes';
import type { BearerTransport } from './bearer-transport';
import { refreshTokenMigration } from './refresh-tokens';

/**
 * The bearer transport's part: `/token` and `/refresh` when it is on (and `/logout` for a
 * bearer-only app in cookie mode; with sessions, /logout is the session's); its table always.
 */
export function bearerPart(
  core: AccountCore<BearerTransport>,
  finishSignIn: FinishSignIn,
  docs: Record<string, RouteDocPart>,
): AccountPart {
  return {
    routes: core.bearer ? withAccountDocs(bearerRoutes(core, finishSignIn, { logout: !core.session }), docs) : [],
    migrations: { '0002_refresh_tokens': refreshTokenMigration(core.tables.refreshTokens) },
  };
}
