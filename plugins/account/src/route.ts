import type { Dependency, HttpMethod, NeutralRequest, NeutralResult, RouteDescriptor } from '@crudsmith/core';

/** A route of the account router. */
export function route(
  spec: { method: HttpMethod; path: string; operation: string; summary: string; dependencies?: Dependency[] },
  handler: (req: NeutralRequest) => Promise<NeutralResult>,
): RouteDescriptor {
  return {
    method: spec.method,
    path: spec.path,
    operation: `account_${spec.operation}`,
    dependencies: spec.dependencies ?? [],
    handler,
    doc: { operationId: `account_${spec.operation}`, summary: spec.summary, tags: ['auth'] },
  };
}
