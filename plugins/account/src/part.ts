import type { Migration, RouteDescriptor } from '@crudsmith/core';
import type { RouteDocPart } from './openapi';

/**
 * What a feature adds to the account plugin (a transport, two-factor, recovery, OAuth,
 * roles, API keys), built from the shared core and merged by `account()` as bootstrap
 * merges plugins.
 */
export interface AccountPart {
  /** Its routes, documented, in mounting order (empty when the feature is not configured). */
  routes: RouteDescriptor[];
  /** Its tables by migration name; most parts list theirs configured or not, so turning one on later needs no migration. */
  migrations: Record<string, Migration>;
  /** Docs it lays over the other parts' routes, by operation (two-factor's sign-in answers). */
  docs?: Record<string, RouteDocPart>;
  /** Ends what it holds (mail transports) when the plugin closes. */
  close?(): Promise<void>;
  /** Resolves once the work it started in the background (deliveries) is done. */
  settled?(): Promise<void>;
}

/**
 * Parts merged in order: routes and migrations concatenated (one migration name in two
 * parts is a programming error), docs laid over one another, `close` and `settled` of each.
 */
export function mergeParts(parts: AccountPart[]): Required<AccountPart> {
  const named = parts.flatMap((part) => Object.entries(part.migrations));
  const twice = named.find(([name], i) => named.findIndex(([other]) => other === name) !== i);
  if (twice) throw new Error(`account: two parts declare the migration ${twice[0]}`);
  return {
    routes: parts.flatMap((part) => part.routes),
    migrations: Object.fromEntries(named),
    docs: Object.fromEntries(parts.flatMap((part) => Object.entries(part.docs ?? {}))),
    async close() {
      for (const part of parts) await part.close?.();
    },
    async settled() {
      await Promise.all(parts.map((part) => part.settled?.()));
    },
  };
}
