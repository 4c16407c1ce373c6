import { accessMigration } from '../access-tables';
import type { AccountCore } from '../account-core';
import { jsonBodiesOnly } from '../json-only';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import { roleRoutes } from './role-routes';

/** Roles' part: the superuser-only role routes with `roleRoutes`; the role tables always (every principal reads them). */
export function accessPart(core: AccountCore, docs: Record<string, RouteDocPart>): AccountPart {
  return {
    routes: core.options.roleRoutes ? jsonBodiesOnly(withAccountDocs(roleRoutes(core), docs)) : [],
    migrations: { '0012_access': accessMigration(core.tables) },
  };
}
