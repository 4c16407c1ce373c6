import { ForbiddenError, UnauthorizedError, crudRouter, type Dependency, type OperationKey, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import type { ResolvedView } from '../model-view';
import type { AdminAction } from '../options';
import type { RowCounts } from '../row-counts';

const OPERATIONS: Record<AdminAction, OperationKey[]> = {
  view: ['read', 'readMulti'],
  create: ['create'],
  update: ['update'],
  delete: ['delete'],
};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `{mount}/crud/{model}`: the model's generated REST endpoints (the API's routes and wire
 * format) under the admin session and its CSRF header, limited to the view's allowed
 * actions. A view that hashes a password or adjusts values before writing (passwordTransformer,
 * beforeWrite) offers no create or update here: the generated routes would skip that step.
 */
export function crudApiRoutes(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor[] {
  const transforms = Boolean(view.password || view.view.beforeWrite);
  const actions = [...view.allowed].filter((a) => !(transforms && (a === 'create' || a === 'update')));
  const router = crudRouter({
    session: ctx.knex,
    model: view.view.model,
    createSchema: actions.includes('create') ? view.view.createSchema : undefined,
    updateSchema: actions.includes('update') ? view.view.updateSchema : undefined,
    selectSchema: view.view.selectSchema,
    path: `${ctx.mount}/crud/${view.name}`,
    includedMethods: actions.flatMap((a) => OPERATIONS[a]),
  });
  return router.routes.map((route) => {
    const unsafe = !SAFE.has(route.method);
    // First of the route's dependencies, so nothing of the request is read before it passes.
    const admitted: Dependency = async (req) => {
      const principal = await ctx.auth.current(req);
      if (!principal) throw new UnauthorizedError('Not authenticated');
      if (unsafe && !ctx.auth.csrfValid(req, principal)) throw new ForbiddenError('Missing or wrong X-CSRF-Token header');
    };
    return {
      ...route,
      operation: `admin_api_${route.operation}`,
      dependencies: [admitted, ...route.dependencies],
      doc: undefined,
      async handler(req) {
        const result = await route.handler(req);
        if (unsafe && result.status < 400) {
          counts.forget(view.name);
          await view.view.afterWrite?.(route.method === 'DELETE' ? 'delete' : route.method === 'POST' ? 'create' : 'update');
        }
        return result;
      },
    };
  });
}
