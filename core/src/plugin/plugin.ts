import type { MigrationSet } from '../migrations';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import type { RouteDescriptor } from '../http/route';

/** Runs before a route's dependencies; answering a result ends the request early. */
export type BeforeHook = (
  req: NeutralRequest,
  route: RouteDescriptor,
) => void | NeutralResult | Promise<void | NeutralResult>;

/** Runs after the handler (or the error's rendering); may answer a changed result. */
export type AfterHook = (
  req: NeutralRequest,
  route: RouteDescriptor,
  result: NeutralResult,
) => void | NeutralResult | Promise<void | NeutralResult>;

/** Observes an error before it is rendered (logging, metrics). */
export type ErrorHook = (req: NeutralRequest, route: RouteDescriptor, error: unknown) => void | Promise<void>;

/** A plugin's request hooks, and the routes they apply to. */
export interface PluginHooks {
  before?: BeforeHook;
  after?: AfterHook;
  onError?: ErrorHook;
  /**
   * Whether the hooks wrap this route (its path as the adapter mounts it, under any prefix of its own).
   * Asked once per route at bootstrap, never per request. Default: every route.
   */
  appliesTo?(route: RouteDescriptor): boolean;
}

/** Answers requests under `prefix` that no route matched (a JSON 404 with headers). */
export interface Fallback {
  prefix: string;
  handler: (req: NeutralRequest) => Promise<NeutralResult>;
}

/**
 * A plugin is a plain value passed at bootstrap (Fastify's and better-auth's style): what
 * it contributes, nothing it does on import. Plugins never import each other or an
 * adapter; they speak through route descriptors, the principal and request state.
 */
export interface Plugin {
  name: string;
  /** Names of the plugins this one needs; bootstrap fails naming any that is missing, and runs their migrations first. */
  dependsOn?: string[];
  /** Routes the plugin serves. */
  routes?: RouteDescriptor[];
  hooks?: PluginHooks;
  fallback?: Fallback;
  /** The plugin's tables, as knex migrations; bootstrap runs them, ordered with the app's own. */
  migrations?: MigrationSet;
  /** Runs once after migrations (warm caches, connect stores). */
  init?(): Promise<void>;
  /** Releases what init took. */
  close?(): Promise<void>;
}
