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
  /** JSON schemas of the responses, by status code. */
  responses?: Record<string, { description: string; schema?: Record<string, unknown> }>;
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
  doc?: RouteDoc;
}
