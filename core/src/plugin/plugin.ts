import type { MigrationSet } from '../data/migrations';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import type { RouteDescriptor } from '../http/route';

/** Runs before a route's dependencies; answering a result ends the request early. */
export type BeforeHook = (req: NeutralRequest, route: RouteDescriptor) => void | NeutralResult | Promise<void | NeutralResult>;

/** Runs after the handler (or the error's rendering); may answer a changed result. */
export type AfterHook = (
  req: NeutralRequest,
  route: RouteDescriptor,
  result: NeutralResult,
) => void | NeutralResult | Promise<void | NeutralResult>;

/** Observes an error before it is rendered (logging, metrics). */
export type ErrorHook = (req: NeutralRequest, route: RouteDescriptor, error: unknown) => void | Promise<void>;

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
  /** Routes the plugin serves. */
  routes?: RouteDescriptor[];
  hooks?: { before?: BeforeHook; after?: AfterHook; onError?: ErrorHook };
  fallback?: Fallback;
  /** Knex migrations, listed by the app in order at bootstrap. */
  migrations?: MigrationSet;
  /** Rewrites the full route list once, at bootstrap (the versioning plugin prefixes paths). */
  transformRoutes?(routes: RouteDescriptor[]): RouteDescriptor[];
  /** Runs once after migrations (warm caches, connect stores). */
  init?(): Promise<void>;
  /** Releases what init took. */
  close?(): Promise<void>;
}
