import type { Dependency, NeutralRequest } from './neutral';

/**
 * Who is calling, as every plugin sees it. The app decides how it is found (in the
 * example, the account plugin's optional current user) and hands that dependency to
 * `bootstrap`; plugins read it with `principalOf(req)` and never import each other.
 */
export interface Principal {
  id: string | number;
  tierId: number | null;
  isSuperuser: boolean;
  scopes: string[];
  /** Role names the caller holds (empty when the app has none). */
  roles?: readonly string[];
  /** Permission strings (`notes:update`) the caller holds, narrowed by an API key's scopes. */
  permissions?: readonly string[];
  transport: 'session' | 'bearer' | string;
  /**
   * What a rate limiter counts this caller's requests under instead of `id`: an API key
   * sets its own (`api-key:<key id>`), so each of a user's keys has its own budget.
   */
  rateLimitKey?: string;
}

const RESOLVER = 'crudsmith.principal';

/** Installs the app's principal dependency on a request (bootstrap does this). */
export function setPrincipalResolver(req: NeutralRequest, resolver: Dependency<Principal | null>): void {
  req.state[RESOLVER] = resolver;
}

/** The caller's principal, or null when anonymous or when the app set no resolver. */
export async function principalOf(req: NeutralRequest): Promise<Principal | null> {
  const resolver = req.state[RESOLVER] as Dependency<Principal | null> | undefined;
  return resolver ? req.resolve(resolver) : null;
}
