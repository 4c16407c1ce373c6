import type { AccountCore } from '../account-core';
import { apiKeyMigration, apiKeyTierMigration } from '../api-key-store';
import { jsonBodiesOnly } from '../json-only';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import { apiKeyRoutes } from './api-key-routes';

/** API keys' part: `/api-keys` with `apiKeys`; the key tables always. */
export function apiKeysPart(core: AccountCore, docs: Record<string, RouteDocPart>): AccountPart {
  const table = core.tables.apiKeys;
  return {
    routes: core.apiKeys ? jsonBodiesOnly(withAccountDocs(apiKeyRoutes(core, core.apiKeys), docs)) : [],
    migrations: { '0013_api_keys': apiKeyMigration(table), '0014_api_key_tiers': apiKeyTierMigration(table) },
  };
}
