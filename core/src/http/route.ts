import type { Knex } from 'knex';
import type { Dependency, HttpMethod, NeutralRequest, NeutralResult } from './neutral';

/** OpenAPI information a route carries, for the docs to publish. */
export interface RouteDoc {
  operationId: string;
  summary?: string;
  tags?: string[];
  /** OpenAPI parameter objects (query and path). */
  parameters?: Record<string, unknown>[];
  /** JSON schema of the request body. */
  requestBody?: Record<string, unknown>;
  /** JSON schemas of the responses, by status code; `headers` as OpenAPI header objects by name. */
  responses?: Record<
    string,
    {
      description: string;
      schema?: Record<string, unknown>;
      headers?: Record<string, Record<string, unknown>>;
      /** Schemas by media type, for an answer that is not JSON alone (`schema` is then unused). */
      content?: Record<string, Record<string, unknown>>;
    }
  >;
  /** False when the request may come without a body (default true when there is a `requestBody`). */
  requestBodyRequired?: boolean;
  /** Media types `requestBody` is accepted as (default `['application/json']`), e.g. a form. */
  requestBodyContentTypes?: string[];
  /**
   * OpenAPI security requirements: any one object suffices, and every scheme within one
   * is needed (`[{ session: [], csrf: [] }, { bearer: [] }]`). Absent: no authentication.
   */
  security?: Record<string, string[]>[];
  /** The OpenAPI security scheme objects `security` names, for the document's components. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /**
   * The route needs a caller (an access policy rules it): a document gives it the app's
   * login requirement, as it does a route with a login dependency.
   */
  requiresPrincipal?: boolean;
  /** OpenAPI `x-` extensions of the operation (`x-crudsmith-permissions`; the typed-client generator reads `x-crudsmith-crud`). */
  extensions?: Record<`x-${string}`, unknown>;
}

/** A framework-neutral route: what an adapter mounts. */
export interface RouteDescriptor {
  method: HttpMethod;
  /** Path with `:name` parameters, relative to where the router is mounted. */
  path: string;
  /** The operation name, unique within an app (`items_read`). */
  operation: string;
  /** Run before the handler, in order, each once per request (guards, auth, rate limits). */
  dependencies: Dependency[];
  handler: (req: NeutralRequest) => Promise<NeutralResult>;
  /**
   * True when `handler` resolves `dependencies` itself (bootstrap's wrapped routes do, so
   * the plugins' before hooks run first); runners then call the handler directly.
   */
  resolvesDependencies?: boolean;
  doc?: RouteDoc;
  /** False: the route is served but left out of the OpenAPI document (default true). */
  includeInSchema?: boolean;
  /**
   * Largest request body this route accepts, in bytes, in place of the adapter's
   * `bodyLimit` (an upload route may need more than JSON routes, or less).
   */
  bodyLimit?: number;
  /**
   * Checks what the route needs that only the database can tell (a generated list: on
   * MySQL/MariaDB, a FULLTEXT index on each column its `match` filters search). It travels
   * with the route through plugins that copy it, and `bootstrap`'s `start` runs each one
   * once, after the migrations; a failure stops the start.
   */
  checkDatabase?(knex: Knex): Promise<void>;
  /**
   * Advice on the indexes the route's reads want (a generated list: one for its declared
   * filters and sorts), read from the database catalogue. `bootstrap`'s `start` logs each
   * line as a warning when its `indexCheck` is on; it never stops the start.
   */
  adviseIndexes?(knex: Knex): Promise<string[]>;
}
