import type { AccountCore } from '../account-core';
import { apiKeyMigration, apiKeyTierMigration } from '../api-key-store';
import { jsonBodiesOnly } from '../json-only';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import { apiKeyRoutes } from './api-key-routes';
import { operatorApiKeys, type OperatorApiKeys } from './operator-api-keys';

/** API keys' part: `/api-keys` and the operator's view of every user's keys with `apiKeys`; the key tables always. */
export function apiKeysPart(
  core: AccountCore,
  docs: Record<string, RouteDocPart>,
): AccountPart & { operator: OperatorApiKeys | null } {
  const table = core.tables.apiKeys;
  return {
    routes: core.apiKeys ? jsonBodiesOnly(withAccountDocs(apiKeyRoutes(core, core.apiKeys), docs)) : [],
    migrations: { '0013_api_keys': apiKeyMigration(table), '0014_api_key_tiers': apiKeyTierMigration(table) },
    operator: core.apiKeys ? operatorApiKeys(core, core.apiKeys) : null,
  };
}
