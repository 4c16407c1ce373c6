import type { AccountCore } from '../account-core';
import { accountTokenMigration } from './account-tokens';
import { jsonBodiesOnly } from '../json-only';
import { Recovery } from './recovery';
import { type RouteDocPart, withAccountDocs } from '../openapi';
import type { AccountPart } from '../part';
import { emailChangeRoutes } from './email-change-routes';
import { emailRoutes } from './email-routes';
import { recoveryDocs } from './recovery-docs';

/**
 * The e-mail (or phone) factor's part of the plugin: nothing but the token table when
 * `recovery` is not configured (so turning it on later needs no migration of its own).
 */
export function recoveryPart(core: AccountCore, table: string, signedIn: RouteDocPart): AccountPart {
  const migrations = { '0010_account_tokens': accountTokenMigration(table) };
  const options = core.options.recovery;
  if (!options) return { routes: [], migrations };
  const recovery = new Recovery(core, options, table);
  const email = core.users.columns.email;
  const routes = [
    ...emailRoutes(core, recovery),
    ...(email && recovery.mail ? emailChangeRoutes(core, recovery, email) : []),
  ];
  return {
    routes: jsonBodiesOnly(withAccountDocs(routes, recoveryDocs(core, recovery, signedIn))),
    migrations,
    settled: () => recovery.settled(),
    async close() {
      await recovery.settled();
      await options.mail?.close?.();
      if (options.messages !== options.mail) await options.messages?.close?.();
    },
  };
}
