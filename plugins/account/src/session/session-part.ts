import { sessionTableMigration } from '@crudsmith/core/auth';
import type { AccountCore } from '../account-core';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import type { FinishSignIn } from '../sign-in';
import { sessionRoutes } from './session-routes';

/** The session transport's part: `/login`, `/logout` and the management routes when it is on; its table always. */
export function sessionPart(
  core: AccountCore,
  finishSignIn: FinishSignIn,
  docs: Record<string, RouteDocPart>,
): AccountPart {
  return {
    routes: core.session
      ? withAccountDocs(sessionRoutes(core, finishSignIn, core.options.trustedOrigins ?? []), docs)
      : [],
    migrations: { '0001_sessions': sessionTableMigration(core.tables.sessions) },
  };
}
